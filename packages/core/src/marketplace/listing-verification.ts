import { StratboxError } from '../errors/stratbox-error.js';

/**
 * Checks the symbols a seller asks the platform to verify a listing on: each once, spot pairs
 * for a SPOT strategy and perpetuals (`BASE/QUOTE:SETTLE`) for a LINEAR one. A problem is a 400
 * naming the field. (No symbols: the verification's default, BTC/USDT:USDT or BTC/USDT.)
 */
export function checkVerificationSymbols(marketType: 'LINEAR' | 'SPOT', symbols: readonly string[] | undefined): void {
  if (symbols === undefined) return;
  if (new Set(symbols).size !== symbols.length) {
    throw new StratboxError('VALIDATION_FAILED', 'Each symbol may appear once', [{ path: 'body.symbols', message: 'Duplicate symbol' }]);
  }
  symbols.forEach((symbol, i) => {
    const perpetual = symbol.includes(':');
    if (marketType === 'SPOT' && perpetual) {
      throw new StratboxError('VALIDATION_FAILED', `${symbol} is a perpetual; this strategy trades SPOT`, [
        { path: `body.symbols.${i}`, message: 'A SPOT strategy is verified on spot pairs such as BTC/USDT' },
      ]);
    }
    if (marketType === 'LINEAR' && !perpetual) {
      throw new StratboxError('VALIDATION_FAILED', `${symbol} is a spot pair; this strategy trades LINEAR perpetuals`, [
        { path: `body.symbols.${i}`, message: 'A LINEAR strategy is verified on perpetuals such as BTC/USDT:USDT' },
      ]);
    }
  });
}

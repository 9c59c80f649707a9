import type { ExchangeMarket } from '../ports/exchange-gateway.js';
import { parseMarketSymbol } from './market-symbol.js';
import type { PaperSymbol } from './paper-account.js';

/*
 * The markets of the paper exchange: any well-formed symbol of its market type, `BASE/QUOTE:SETTLE`
 * perpetuals with settle = quote (LINEAR) or `BASE/QUOTE` (SPOT), active, with no precision or
 * minimum limits.
 */

/** `BASE/QUOTE:SETTLE` (LINEAR, settle = quote) or `BASE/QUOTE` (SPOT), else null. */
export function parsePaperSymbol(symbol: string, linear: boolean): PaperSymbol | null {
  const parsed = parseMarketSymbol(symbol);
  if (!parsed || (linear ? parsed.settle !== parsed.quote : parsed.settle !== null)) return null;
  return { symbol, base: parsed.base, quote: parsed.quote, settle: parsed.settle };
}

/** The port's view of a paper market. */
export function paperMarket(s: PaperSymbol, linear: boolean): ExchangeMarket {
  return {
    symbol: s.symbol,
    base: s.base,
    quote: s.quote,
    settle: s.settle,
    type: linear ? 'swap' : 'spot',
    linear: linear ? true : null,
    contractSize: linear ? 1 : null,
    amountStep: null,
    priceStep: null,
    minQuantity: null,
    minCost: null,
    active: true,
  };
}

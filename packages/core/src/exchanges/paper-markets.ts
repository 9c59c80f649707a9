import type { ExchangeMarket } from '../ports/exchange-gateway.js';
import type { PaperSymbol } from './paper-account.js';

/*
 * The markets of the paper exchange: any well-formed symbol of its market type, `BASE/QUOTE:SETTLE`
 * perpetuals with settle = quote (LINEAR) or `BASE/QUOTE` (SPOT), active, with no precision or
 * minimum limits.
 */

/** `BASE/QUOTE:SETTLE` (LINEAR, settle = quote) or `BASE/QUOTE` (SPOT), else null. */
export function parsePaperSymbol(symbol: string, linear: boolean): PaperSymbol | null {
  const match = /^([A-Z0-9]{1,20})\/([A-Z0-9]{1,20})(?::([A-Z0-9]{1,20}))?$/.exec(symbol);
  if (!match) return null;
  const [, base, quote, settle] = match as unknown as [string, string, string, string | undefined];
  if (linear ? settle !== quote : settle !== undefined) return null;
  return { symbol, base, quote, settle: settle ?? null };
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

/*
 * The one place a ccxt unified symbol is taken apart: `BASE/QUOTE` is a spot pair, and
 * `BASE/QUOTE:SETTLE` a linear perpetual margined and settled in SETTLE. Everything that needs a
 * symbol's market type or the currency its account is counted in asks here instead of splitting
 * the string by hand.
 */

export type SymbolMarketType = 'LINEAR' | 'SPOT';

export interface MarketSymbol {
  /** The symbol as given, e.g. `BTC/USDT:USDT`. */
  symbol: string;
  base: string;
  quote: string;
  /** The margin and settlement currency of a perpetual (`:SETTLE`); null for a spot pair, as ccxt's `market.settle`. */
  settle: string | null;
  /** `LINEAR` when the symbol names a settle currency, else `SPOT`. */
  marketType: SymbolMarketType;
  /**
   * The currency an account's cash and equity in this market are counted in (the balance to read):
   * the settle currency of a perpetual, the quote currency of a spot pair.
   */
  equityCurrency: string;
}

const UNIFIED_SYMBOL = /^([A-Z0-9]{1,20})\/([A-Z0-9]{1,20})(?::([A-Z0-9]{1,20}))?$/;

/** Takes a ccxt unified symbol apart; null when it is not one (`BTC/USDT`, `BTC/USDT:USDT`; upper-case letters and digits). */
export function parseMarketSymbol(symbol: string): MarketSymbol | null {
  const match = UNIFIED_SYMBOL.exec(symbol);
  if (!match) return null;
  const [, base, quote, settle] = match as unknown as [string, string, string, string | undefined];
  return {
    symbol,
    base,
    quote,
    settle: settle ?? null,
    marketType: settle === undefined ? 'SPOT' : 'LINEAR',
    equityCurrency: settle ?? quote,
  };
}

/**
 * The market type the symbols share: `LINEAR` when every one is a perpetual, `SPOT` when every one
 * is a spot pair, null when they are mixed, empty, or one is not a unified symbol.
 */
export function marketTypeOfSymbols(symbols: readonly string[]): SymbolMarketType | null {
  let type: SymbolMarketType | null = null;
  for (const symbol of symbols) {
    const parsed = parseMarketSymbol(symbol);
    if (!parsed || (type !== null && parsed.marketType !== type)) return null;
    type = parsed.marketType;
  }
  return type;
}

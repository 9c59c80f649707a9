import type { Exchange } from 'ccxt';

/**
 * A ccxt exchange instance (`new ccxt.binance({...})`, or `createCcxtExchange`), as core's
 * public types name it: the small structural part core relies on, declared here rather than
 * imported from ccxt, so that core's type declarations never pull in ccxt's typings (a consumer
 * compiling with `skipLibCheck: false` would otherwise type-check all of ccxt). Every ccxt
 * `Exchange` fits it; inside core the value is used as ccxt's own type (`asCcxt`), a type-only
 * import that loads nothing.
 */
export interface CcxtExchange {
  readonly id: string;
  has: Record<string, unknown>;
  /** Endpoints: `api` (the REST base URLs, which a host may point elsewhere), `test` (testnet), ... */
  urls: Record<string, unknown>;
  loadMarkets(reload?: boolean): Promise<unknown>;
  fetchOHLCV(symbol: string, timeframe?: string, since?: number, limit?: number): Promise<unknown[]>;
  setSandboxMode(enabled: boolean): void;
}

/** The ccxt type of an instance given as a CcxtExchange (core's own code only; not exported from core). */
export const asCcxt = (exchange: CcxtExchange): Exchange => exchange as unknown as Exchange;

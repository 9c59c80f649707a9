import ccxt from 'ccxt';
import { describe, expect, it } from 'vitest';
import { CCXT_EXCHANGE_IDS, PAPER_EXCHANGE_ID, isKnownExchange } from './ccxt-exchanges.js';

describe('the exchange ids a credential may name', () => {
  it("are exactly the installed ccxt's exchanges (refresh the list after upgrading ccxt)", () => {
    expect([...CCXT_EXCHANGE_IDS]).toEqual([...ccxt.exchanges]);
  });

  it('accept every ccxt id and paper, nothing else', () => {
    for (const id of ['binance', 'binanceusdm', 'bybit', 'okx', PAPER_EXCHANGE_ID]) expect(isKnownExchange(id)).toBe(true);
    for (const id of ['Binance', 'nosuch', '', 'constructor', '__proto__', 'toString']) expect(isKnownExchange(id)).toBe(false);
  });
});

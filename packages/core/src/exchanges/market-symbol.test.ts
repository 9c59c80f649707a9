import { describe, expect, it } from 'vitest';
import { marketTypeOfSymbols, parseMarketSymbol } from './market-symbol.js';

describe('parseMarketSymbol', () => {
  it('reads a linear perpetual: its settle currency counts its equity', () => {
    expect(parseMarketSymbol('BTC/USDT:USDT')).toEqual({
      symbol: 'BTC/USDT:USDT',
      base: 'BTC',
      quote: 'USDT',
      settle: 'USDT',
      marketType: 'LINEAR',
      equityCurrency: 'USDT',
    });
    expect(parseMarketSymbol('1000PEPE/USDC:USDC')).toMatchObject({ base: '1000PEPE', settle: 'USDC', equityCurrency: 'USDC' });
  });

  it('reads a spot pair: no settle currency, its quote counts its equity', () => {
    expect(parseMarketSymbol('ETH/BTC')).toEqual({ symbol: 'ETH/BTC', base: 'ETH', quote: 'BTC', settle: null, marketType: 'SPOT', equityCurrency: 'BTC' });
  });

  it('refuses what is not a unified symbol', () => {
    for (const bad of ['', 'BTCUSDT', 'btc/usdt', 'BTC/USDT:', 'BTC/USDT:USDT:USDT', 'BTC//USDT', '/USDT', 'BTC/USDT-250627', ' BTC/USDT']) {
      expect(parseMarketSymbol(bad), bad).toBeNull();
    }
  });
});

describe('marketTypeOfSymbols', () => {
  it('names the market type the symbols share', () => {
    expect(marketTypeOfSymbols(['BTC/USDT:USDT', 'ETH/USDT:USDT'])).toBe('LINEAR');
    expect(marketTypeOfSymbols(['BTC/USDT', 'ETH/USDT'])).toBe('SPOT');
  });

  it('is null for mixed, empty or malformed symbols', () => {
    expect(marketTypeOfSymbols(['BTC/USDT:USDT', 'ETH/USDT'])).toBeNull();
    expect(marketTypeOfSymbols(['ETH/USDT', 'BTC/USDT:USDT'])).toBeNull();
    expect(marketTypeOfSymbols([])).toBeNull();
    expect(marketTypeOfSymbols(['BTC/USDT', 'nope'])).toBeNull();
  });
});

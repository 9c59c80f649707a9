import { describe, expect, it } from 'vitest';
import type { OrderRecord } from '../ports/store.js';
import { ownSpotQuantity } from './spot-positions.js';

const fill = (clientOrderId: string, side: 'buy' | 'sell', filledQuantity: number, averagePrice: number, fee: number): OrderRecord => ({
  id: `ord_${clientOrderId}`,
  userId: 'u',
  deploymentId: 'd',
  clientOrderId,
  exchangeOrderId: '1',
  symbol: 'BTC/USDT',
  side,
  type: 'market',
  quantity: filledQuantity,
  price: null,
  stopPrice: null,
  reduceOnly: side === 'sell',
  status: 'filled',
  filledQuantity,
  averagePrice,
  fee,
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
});

describe('ownSpotQuantity', () => {
  it('counts what the fills bought, less the fees seen in the base asset', () => {
    const buy = fill('a', 'buy', 0.01, 40_000, 0.00001);
    expect(ownSpotQuantity([buy], 'BTC', new Map([['a', { fee: 0.00001, currency: 'BTC' }]]))).toEqual({ quantity: 0.00999, entryPrice: 400 / 0.00999 });
    // A fee seen in the quote currency takes nothing from the base.
    const quoteFee = fill('b', 'buy', 0.01, 40_000, 0.4);
    expect(ownSpotQuantity([quoteFee], 'BTC', new Map([['b', { fee: 0.4, currency: 'USDT' }]])).quantity).toBe(0.01);
  });

  it('without the fee currency, a fee of at most 1 % of the quantity counts as base: it errs towards dust, never towards coins it did not buy', () => {
    expect(ownSpotQuantity([fill('a', 'buy', 0.01, 40_000, 0.00001)], 'BTC').quantity).toBe(0.00999);
    expect(ownSpotQuantity([fill('b', 'buy', 0.01, 40_000, 0.4)], 'BTC').quantity).toBe(0.01);
  });

  it('is a sum: fills of the same instant give the same quantity in any order, and it is never below zero', () => {
    const orders = [fill('a', 'buy', 0.01, 40_000, 0.00001), fill('b', 'sell', 0.00999, 40_000, 0.4), fill('c', 'buy', 0.01, 40_000, 0.00001)];
    expect(ownSpotQuantity(orders, 'BTC').quantity).toBe(0.00999);
    expect(ownSpotQuantity([...orders].reverse(), 'BTC').quantity).toBe(0.00999);
    expect(ownSpotQuantity([fill('s', 'sell', 0.5, 40_000, 20)], 'BTC')).toEqual({ quantity: 0, entryPrice: null });
  });
});

import { describe, expect, it } from 'vitest';
import type { OrderRecord } from '../ports/store.js';
import { realizedPnl } from './realized-pnl.js';

let n = 0;
/** A filled order of `quantity` at `price`, changed last at second `t`. */
function fill(symbol: string, side: 'buy' | 'sell', quantity: number, price: number, t: number, overrides: Partial<OrderRecord> = {}): OrderRecord {
  const time = new Date(Date.UTC(2026, 0, 1, 0, 0, t)).toISOString();
  n++;
  return {
    id: `ord_${String(n).padStart(4, '0')}`,
    userId: 'usr_1',
    deploymentId: 'dep_1',
    clientOrderId: `c${n}`,
    exchangeOrderId: `e${n}`,
    symbol,
    side,
    type: 'market',
    quantity,
    price: null,
    stopPrice: null,
    reduceOnly: false,
    status: 'filled',
    filledQuantity: quantity,
    averagePrice: price,
    fee: 0,
    createdAt: time,
    updatedAt: time,
    ...overrides,
  };
}

describe('realizedPnl (average cost, net of fees)', () => {
  it('a short opened first, added to, then bought back through zero into a long', () => {
    const orders = [
      fill('X', 'sell', 1, 100, 1, { fee: 0.5 }),
      fill('X', 'sell', 1, 110, 2, { fee: 0.5 }), // short 2 at 105
      fill('X', 'buy', 3, 90, 3, { fee: 1 }), // closes 2: (105 - 90) * 2 = 30; opens a long of 1 at 90
      fill('X', 'sell', 1, 95, 4), // closes the long: (95 - 90) * 1 = 5
    ];
    expect(realizedPnl(['X'], orders)).toEqual([{ symbol: 'X', realizedPnl: 35 - 2, fees: 2, filledOrders: 4 }]);
  });

  it('counts fills in the order of their last change, whatever the listing order; unfilled orders do not count', () => {
    const orders = [
      fill('X', 'sell', 1, 120, 5), // fills last: closes at 120
      fill('X', 'buy', 1, 100, 1),
      fill('X', 'buy', 1, 999, 2, { status: 'cancelled', filledQuantity: 0, averagePrice: null }),
      fill('X', 'buy', 2, 130, 3, { status: 'cancelled', filledQuantity: 1 }), // partly filled, then cancelled: 1 at 130
    ];
    // long 2 at 115, then sell 1 at 120: +5
    expect(realizedPnl(['X'], orders)).toEqual([{ symbol: 'X', realizedPnl: 5, fees: 0, filledOrders: 3 }]);
  });

  it('answers every symbol of the deployment, in its order, zero where nothing filled', () => {
    const orders = [fill('B', 'buy', 1, 10, 1), fill('B', 'sell', 1, 12, 2, { fee: 0.25 })];
    expect(realizedPnl(['A', 'B'], orders)).toEqual([
      { symbol: 'A', realizedPnl: 0, fees: 0, filledOrders: 0 },
      { symbol: 'B', realizedPnl: 1.75, fees: 0.25, filledOrders: 2 },
    ]);
  });
});

import { describe, expect, it } from 'vitest';
import { CLIENT_ORDER_ID_PATTERN, clientOrderPrefix } from '../exchanges/client-order-id.js';
import type { ExchangeOrder } from '../ports/exchange-gateway.js';
import { createMemoryStore } from '../testing/memory-store.js';
import { newId } from '../util/ids.js';
import { createOrderRecords } from './order-records.js';

const BTC = 'BTC/USDT:USDT';

function setup() {
  let nowMs = Date.parse('2026-01-02T03:04:05.000Z');
  const clock = { now: () => new Date(nowMs) };
  const store = createMemoryStore();
  const records = createOrderRecords({ store, clock });
  const base = { userId: newId('user'), deploymentId: newId('deployment'), symbol: BTC, side: 'buy' as const, quantity: 2 };
  return { store, records, base, advance: (ms: number) => (nowMs += ms) };
}

const seenAs = (status: ExchangeOrder['status'], filledQuantity: number): ExchangeOrder =>
  ({ exchangeOrderId: 'x-1', status, filledQuantity, averagePrice: filledQuantity > 0 ? 100 : null, fee: filledQuantity * 0.1 }) as ExchangeOrder;

describe('order records', () => {
  it("inserts a pending order under a fresh client order id with its deployment's prefix, keeping only the price its type uses", async () => {
    const { store, records, base } = setup();
    const limit = await records.insertPending({ ...base, type: 'limit', price: 95, stopPrice: 90 });
    const stop = await records.insertPending({ ...base, type: 'stop', price: 95, stopPrice: 90, reduceOnly: true });
    expect(limit).toMatchObject({ status: 'pending', exchangeOrderId: null, price: 95, stopPrice: null, reduceOnly: false, filledQuantity: 0 });
    expect(stop).toMatchObject({ status: 'pending', price: null, stopPrice: 90, reduceOnly: true });
    expect(limit.clientOrderId).toMatch(CLIENT_ORDER_ID_PATTERN);
    expect(limit.clientOrderId.startsWith(clientOrderPrefix(base.deploymentId))).toBe(true);
    expect(limit.clientOrderId).not.toBe(stop.clientOrderId);
    expect(await store.orders.findByClientOrderId(limit.clientOrderId)).toEqual(limit);
  });

  it("takes the exchange's view while the order is open, and never overwrites a final status", async () => {
    const { store, records, base, advance } = setup();
    const order = await records.insertPending({ ...base, type: 'market' });
    advance(1000);
    const partial = await records.recordSeen(order, seenAs('partially_filled', 1));
    expect(partial).toMatchObject({ exchangeOrderId: 'x-1', status: 'partially_filled', filledQuantity: 1, updatedAt: '2026-01-02T03:04:06.000Z' });
    const filled = await records.recordSeen(partial, seenAs('filled', 2));
    expect(filled).toMatchObject({ status: 'filled', filledQuantity: 2 });
    // A late, stale report of the same order changes nothing.
    expect(await records.recordSeen(partial, seenAs('open', 0))).toMatchObject({ status: 'filled', filledQuantity: 2 });
    expect(await store.orders.findById(base.userId, order.id)).toMatchObject({ status: 'filled', filledQuantity: 2 });
  });

  it('marks only a pending order rejected', async () => {
    const { records, base } = setup();
    const pending = await records.insertPending({ ...base, type: 'market' });
    expect((await records.markRejected(pending)).status).toBe('rejected');
    const open = await records.recordSeen(await records.insertPending({ ...base, type: 'market' }), seenAs('open', 0));
    expect((await records.markRejected(open)).status).toBe('open');
  });
});

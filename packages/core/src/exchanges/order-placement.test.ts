import { describe, expect, it } from 'vitest';
import { ExchangeGatewayError, type ExchangeGateway } from '../ports/exchange-gateway.js';
import type { OrderRecord } from '../ports/store.js';
import { createMemoryStore } from '../testing/memory-store.js';
import { newId } from '../util/ids.js';
import { newClientOrderId } from './client-order-id.js';
import { createOrderPlacement } from './order-placement.js';
import { createPaperGateway } from './paper-gateway.js';

const BTC = 'BTC/USDT:USDT';

function setup() {
  let nowMs = Date.parse('2026-01-02T03:04:05.000Z');
  const clock = { now: () => new Date(nowMs) };
  const store = createMemoryStore();
  const prices: Record<string, number> = { [BTC]: 100 };
  const paper = createPaperGateway({ prices: (s) => prices[s], fees: { maker: 0, taker: 0.001 }, initialBalance: 1_000, clock });
  const placement = createOrderPlacement({ store, clock });
  const userId = newId('user');
  const deploymentId = newId('deployment');
  return { store, paper, placement, userId, deploymentId, prices, advance: (ms: number) => (nowMs += ms) };
}

describe('createOrderPlacement', () => {
  it('writes the order as pending before sending it, with the client order id the exchange gets', async () => {
    const { store, paper, placement, userId, deploymentId } = setup();
    const seenAtSend: Array<OrderRecord | null> = [];
    // The real paper exchange, observed at the moment the order reaches it.
    const observed: ExchangeGateway = {
      ...paper,
      createOrder: async (request) => {
        seenAtSend.push(await store.orders.findByClientOrderId(request.clientOrderId));
        return paper.createOrder(request);
      },
    };
    const order = await placement.place(observed, { userId, deploymentId, symbol: BTC, side: 'buy', type: 'market', quantity: 2 });
    expect(seenAtSend).toHaveLength(1);
    expect(seenAtSend[0]).toMatchObject({ id: order.id, status: 'pending', clientOrderId: order.clientOrderId, exchangeOrderId: null });
    expect(order).toMatchObject({ status: 'filled', filledQuantity: 2, averagePrice: 100, fee: 0.2, exchangeOrderId: 'paper-1', userId, deploymentId });
    expect(await store.orders.findById(userId, order.id)).toEqual(order);
    expect((await paper.fetchOrderByClientId(order.clientOrderId, BTC))?.exchangeOrderId).toBe('paper-1');
  });

  it('marks an order the exchange refused as rejected', async () => {
    const { store, paper, placement, userId, deploymentId } = setup();
    const error = await placement.place(paper, { userId, deploymentId, symbol: BTC, side: 'buy', type: 'market', quantity: 50 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ExchangeGatewayError);
    const [order] = await store.orders.listByDeployment(userId, deploymentId, { limit: 10 });
    expect(order?.status).toBe('rejected');
  });

  it('resolves an order left pending by a crash between send and acknowledgement by lookup, never by sending it again', async () => {
    const { store, paper, placement, userId, deploymentId } = setup();
    // The supervisor wrote the order and sent it, then crashed before recording the answer.
    const clientOrderId = newClientOrderId();
    const pending: OrderRecord = {
      id: newId('order'),
      userId,
      deploymentId,
      clientOrderId,
      exchangeOrderId: null,
      symbol: BTC,
      side: 'buy',
      type: 'limit',
      quantity: 1,
      price: 90,
      stopPrice: null,
      reduceOnly: false,
      status: 'pending',
      filledQuantity: 0,
      averagePrice: null,
      fee: 0,
      createdAt: '2026-01-02T03:04:05.000Z',
      updatedAt: '2026-01-02T03:04:05.000Z',
    };
    await store.orders.insert(pending);
    await paper.createOrder({ clientOrderId, symbol: BTC, side: 'buy', type: 'limit', quantity: 1, price: 90 });
    // After the restart:
    for (const order of await store.orders.listOpen(deploymentId)) await placement.reconcile(paper, order);
    const resolved = await store.orders.findById(userId, pending.id);
    expect(resolved).toMatchObject({ status: 'open', exchangeOrderId: 'paper-1' });
    expect((await paper.fetchOpenOrders()).length).toBe(1);
  });

  it('keeps a pending order the exchange does not know pending for a while, then marks it rejected', async () => {
    const { store, paper, placement, userId, deploymentId, advance } = setup();
    const pending: OrderRecord = {
      id: newId('order'),
      userId,
      deploymentId,
      clientOrderId: newClientOrderId(),
      exchangeOrderId: null,
      symbol: BTC,
      side: 'sell',
      type: 'market',
      quantity: 1,
      price: null,
      stopPrice: null,
      reduceOnly: false,
      status: 'pending',
      filledQuantity: 0,
      averagePrice: null,
      fee: 0,
      createdAt: '2026-01-02T03:04:05.000Z',
      updatedAt: '2026-01-02T03:04:05.000Z',
    };
    await store.orders.insert(pending);
    expect((await placement.reconcile(paper, pending, { giveUpAfterMs: 60_000 })).status).toBe('pending');
    advance(60_000);
    expect((await placement.reconcile(paper, pending, { giveUpAfterMs: 60_000 })).status).toBe('rejected');
    expect(await paper.fetchOpenOrders()).toEqual([]);
    expect(await paper.fetchPositions([BTC])).toEqual([]);
  });

  it('follows an open order to its fill, and never overwrites a final status', async () => {
    const { store, paper, placement, userId, deploymentId, prices } = setup();
    const order = await placement.place(paper, { userId, deploymentId, symbol: BTC, side: 'buy', type: 'limit', quantity: 1, price: 95 });
    expect(order.status).toBe('open');
    prices[BTC] = 94;
    const filled = await placement.reconcile(paper, order);
    expect(filled).toMatchObject({ status: 'filled', averagePrice: 95 });
    const stale = await placement.record(filled, { ...(await paper.fetchOrder(filled.exchangeOrderId!, BTC)), status: 'open', filledQuantity: 0 });
    expect(stale.status).toBe('filled');
    expect(await store.orders.listOpen(deploymentId)).toEqual([]);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ExchangeGateway } from '@stratbox/core';
import type { StratboxClient } from '@stratbox/client';
import { startWsTestService, type WsTestService } from './harness/ws-service.js';
import { acceleratedClock } from './harness/accelerated-clock.js';
import { waitFor } from './harness/deferred.js';
import { failure } from './harness/client-errors.js';

/*
 * A deployment's orders (paged), positions with P&L, and paged logs, over real HTTP, on a paper
 * credential created without keys. The clock runs 400 times faster than real time, so a '1m'
 * strategy sees a closed candle every 150 ms.
 */

const SYMBOLS = ['BTC/USDT:USDT', 'ETH/USDT:USDT'];

/**
 * Five market orders per symbol, one per candle, then only log lines: long 0.03, add 0.01, sell
 * 0.02 (realizes half), sell 0.04 (closes the rest, opens a short of 0.02), buy 0.01 (realizes
 * half the short): short 0.01 stays open.
 */
const SCRIPTED = `
export const meta = { timeframe: '1m', warmup: 1 };
const steps = [['buy', 0.03], ['buy', 0.01], ['sell', 0.02], ['sell', 0.04], ['buy', 0.01]];
const seen = {};
export function onCandle(ctx, candle) {
  const s = candle.symbol;
  const i = (seen[s] = (seen[s] ?? 0) + 1) - 1;
  const step = steps[i];
  if (step) step[0] === 'buy' ? ctx.buy(s, { quantity: step[1] }) : ctx.sell(s, { quantity: step[1] });
  ctx.log('candle', s, i);
}
`;

/** Every page of a list, following `nextCursor`. */
async function allPages<T>(read: (cursor: string | undefined) => Promise<{ items: T[]; nextCursor: string | null }>): Promise<T[][]> {
  const pages: T[][] = [];
  for (let cursor: string | undefined; ; ) {
    const page = await read(cursor);
    pages.push(page.items);
    if (page.nextCursor === null) return pages;
    cursor = page.nextCursor;
  }
}

describe('deployment orders, positions and logs over HTTP', () => {
  let svc: WsTestService;
  let alice: { userId: string; apiKey: string; client: StratboxClient };
  let bob: { userId: string; client: StratboxClient };
  let credentialId: string;
  let deploymentId: string;

  beforeAll(async () => {
    svc = await startWsTestService({ clock: acceleratedClock(400), deployments: { pollIntervalMs: 40 } });
    alice = await svc.newUser('alice');
    bob = await svc.newUser('bob');
    const strategyId = (await alice.client.strategies.create({ body: { name: 'Scripted', source: SCRIPTED } })).id;
    // A paper credential needs no keys.
    const credential = await alice.client.credentials.create({ body: { exchange: 'paper', label: 'paper' } });
    expect(credential.keyHint).toBe('');
    credentialId = credential.id;
    deploymentId = (await alice.client.deployments.create({ body: { strategyId, credentialId, symbols: SYMBOLS } })).id;
  }, 60_000);

  afterAll(async () => {
    await svc?.close();
  });

  const ordersPage = (limit: number, cursor?: string) =>
    alice.client.deployments
      .orders({ params: { id: deploymentId }, query: { limit, ...(cursor ? { cursor } : {}) } })
      .then((p) => ({ items: p.orders, nextCursor: p.nextCursor }));

  async function paperGateway(): Promise<ExchangeGateway> {
    const credential = await svc.stratbox.credentials.openSecrets(alice.userId, credentialId);
    return svc.stratbox.exchanges.acquire(credential, 'LINEAR');
  }

  it('lists the orders newest first in pages with no duplicate or gap, each as the orders channel carries it', async () => {
    const all = await waitFor(
      'ten filled orders',
      async () => {
        const { orders } = await alice.client.deployments.orders({ params: { id: deploymentId }, query: { limit: 200 } });
        return orders.length === 10 && orders.every((o) => o.status === 'filled') ? orders : null;
      },
      60_000,
    );
    for (const limit of [1, 3, 4, 10]) {
      const pages = await allPages((cursor) => ordersPage(limit, cursor));
      expect(pages.slice(0, -1).every((p) => p.length === limit)).toBe(true);
      expect(pages.flat()).toEqual(all);
    }
    // Newest first: the same order as the Store's, which is newest first by (createdAt, id).
    const stored = await svc.stratbox.store.orders.listByDeployment(alice.userId, deploymentId, { limit: 100 });
    expect(all.map((o) => o.id)).toEqual(stored.map((o) => o.id));
    expect(Object.keys(all[0]!).sort()).toEqual([
      'averagePrice',
      'exchangeOrderId',
      'fee',
      'filledQuantity',
      'id',
      'price',
      'quantity',
      'side',
      'status',
      'symbol',
      'type',
      'updatedAt',
    ]);
    for (const symbol of SYMBOLS) {
      expect(
        all
          .filter((o) => o.symbol === symbol)
          .reverse()
          .map((o) => [o.side, o.filledQuantity]),
      ).toEqual([
        ['buy', 0.03],
        ['buy', 0.01],
        ['sell', 0.02],
        ['sell', 0.04],
        ['buy', 0.01],
      ]);
    }
    const bad = await failure(alice.client.deployments.orders({ params: { id: deploymentId }, query: { cursor: 'not-a-cursor' } }));
    expect(bad.status).toBe(400);
  }, 90_000);

  it("answers the account's open positions and the realized P&L of the deployment's own fills", async () => {
    const { orders } = await alice.client.deployments.orders({ params: { id: deploymentId }, query: { limit: 200 } });
    const answer = await alice.client.deployments.positions({ params: { id: deploymentId } });
    expect(answer).toMatchObject({ deploymentId, status: 'running', live: true });
    const gateway = await paperGateway();
    const exchange = await gateway.fetchPositions(SYMBOLS);
    expect(answer.positions).toHaveLength(2);
    for (const symbol of SYMBOLS) {
      const fills = orders.filter((o) => o.symbol === symbol).reverse();
      const [p1, p2, p3, p4, p5] = fills.map((o) => o.averagePrice!);
      const position = answer.positions.find((p) => p.symbol === symbol)!;
      const onExchange = exchange.find((p) => p.symbol === symbol)!;
      // Short 0.01, entered at the price of the fill that turned the position short.
      expect(position).toMatchObject({ side: 'short', entryPrice: p4 });
      expect(position.quantity).toBeCloseTo(0.01, 12);
      expect(position).toMatchObject({ side: onExchange.side, quantity: onExchange.quantity, entryPrice: onExchange.entryPrice });
      expect(position.markPrice).toEqual(expect.any(Number));
      expect(position.unrealizedPnl).toBeCloseTo((p4! - position.markPrice!) * position.quantity, 8);
      // Average cost: entry (0.03 p1 + 0.01 p2) / 0.04; sells of 0.02 and 0.02 close the long; the buy of 0.01 half the short.
      const entry = (0.03 * p1! + 0.01 * p2!) / 0.04;
      const gross = (p3! - entry) * 0.02 + (p4! - entry) * 0.02 + (p4! - p5!) * 0.01;
      const fees = fills.reduce((sum, o) => sum + o.fee, 0);
      expect(fees).toBeGreaterThan(0);
      const pnl = answer.bySymbol.find((s) => s.symbol === symbol)!;
      expect(pnl.filledOrders).toBe(5);
      expect(pnl.fees).toBeCloseTo(fees, 10);
      expect(pnl.realizedPnl).toBeCloseTo(gross - fees, 8);
    }
    expect(answer.bySymbol.map((s) => s.symbol)).toEqual(SYMBOLS);
    expect(answer.realizedPnl).toBeCloseTo(
      answer.bySymbol.reduce((sum, s) => sum + s.realizedPnl, 0),
      10,
    );
    expect(answer.unrealizedPnl).toBeCloseTo(
      answer.positions.reduce((sum, p) => sum + p.unrealizedPnl!, 0),
      10,
    );
  }, 60_000);

  it('pages the log: the bare array, the next cursor in X-Next-Cursor, every entry once and in order', async () => {
    await waitFor(
      'a log of more than 20 entries',
      async () => (await alice.client.deployments.logs({ params: { id: deploymentId }, query: { limit: 1000 } })).length > 20,
      60_000,
    );
    // Raw HTTP: the body stays the SPEC's bare array; the cursor is in X-Next-Cursor, none on the last page.
    const url = `${svc.baseUrl}/api/deployments/${deploymentId}/logs`;
    const headers = { authorization: `Bearer ${alice.apiKey}` };
    const response = await fetch(`${url}?limit=5`, { headers });
    expect(response.status).toBe(200);
    const body = (await response.json()) as unknown[];
    expect(Array.isArray(body)).toBe(true);
    expect(body).toHaveLength(5);
    const cursor = response.headers.get('x-next-cursor');
    expect(cursor).toEqual(expect.any(String));
    const second = await fetch(`${url}?limit=5&cursor=${encodeURIComponent(cursor!)}`, { headers });
    const secondBody = (await second.json()) as Array<{ timestamp: string }>;
    expect(secondBody).toHaveLength(5);
    expect(secondBody[0]!.timestamp >= (body[4] as { timestamp: string }).timestamp).toBe(true);
    const last = await fetch(`${url}?limit=1000`, { headers });
    expect(last.headers.get('x-next-cursor')).toBeNull();
    expect((await fetch(`${url}?cursor=bm9wZQ`, { headers })).status).toBe(400);
    const first = await alice.client.deployments.logPage({ params: { id: deploymentId }, query: { limit: 5 } });
    expect(first.logs).toHaveLength(5);
    expect(first.nextCursor).toEqual(expect.any(String));
    expect(await alice.client.deployments.logs({ params: { id: deploymentId }, query: { limit: 5 } })).toEqual(first.logs);
  }, 90_000);

  it('after a stop: no positions (live false), realized P&L equals the cash flow of the fills, and the whole log pages exactly', async () => {
    const stopped = await alice.client.deployments.stop({ params: { id: deploymentId } });
    expect(stopped.status).toBe('stopped');
    const answer = await alice.client.deployments.positions({ params: { id: deploymentId } });
    expect(answer).toMatchObject({ status: 'stopped', live: false, positions: [], unrealizedPnl: 0 });
    const { orders } = await alice.client.deployments.orders({ params: { id: deploymentId }, query: { limit: 200 } });
    expect(orders).toHaveLength(12); // the stop bought back the short of each symbol
    for (const symbol of SYMBOLS) {
      // Flat again, so every fill's cash flow is realized: sells minus buys, less fees.
      const fills = orders.filter((o) => o.symbol === symbol && o.filledQuantity > 0);
      const net = fills.reduce((q, o) => q + (o.side === 'buy' ? o.filledQuantity : -o.filledQuantity), 0);
      expect(net).toBeCloseTo(0, 12);
      const cash = fills.reduce((sum, o) => sum + (o.side === 'sell' ? 1 : -1) * o.filledQuantity * o.averagePrice! - o.fee, 0);
      expect(answer.bySymbol.find((s) => s.symbol === symbol)!.realizedPnl).toBeCloseTo(cash, 8);
    }

    const whole = await alice.client.deployments.logs({ params: { id: deploymentId }, query: { limit: 1000 } });
    expect(whole.length).toBeGreaterThan(20);
    for (const limit of [1, 7, 50]) {
      const pages = await allPages((cursor) =>
        alice.client.deployments
          .logPage({ params: { id: deploymentId }, query: { limit, ...(cursor ? { cursor } : {}) } })
          .then((p) => ({ items: p.logs, nextCursor: p.nextCursor })),
      );
      expect(pages.slice(0, -1).every((p) => p.length === limit)).toBe(true);
      expect(pages.flat()).toEqual(whole);
    }
    // `since` with a cursor: the pages of the entries at or after `since`, in order.
    const since = whole[Math.floor(whole.length / 2)]!.timestamp;
    const fromSince = whole.filter((l) => l.timestamp >= since);
    const sincePages = await allPages((cursor) =>
      alice.client.deployments
        .logPage({ params: { id: deploymentId }, query: { since, limit: 3, ...(cursor ? { cursor } : {}) } })
        .then((p) => ({ items: p.logs, nextCursor: p.nextCursor })),
    );
    expect(sincePages.flat()).toEqual(fromSince);
  }, 90_000);

  it("another user's deployment is 404 on orders, positions and logs; a bought strategy's deployment is the buyer's own", async () => {
    const notFound = async (call: Promise<unknown>, id: string) => {
      const error = await failure(call);
      expect(error.status).toBe(404);
      expect(error.message).toBe(`Deployment ${id} not found`);
    };
    await notFound(bob.client.deployments.orders({ params: { id: deploymentId } }), deploymentId);
    await notFound(bob.client.deployments.positions({ params: { id: deploymentId } }), deploymentId);
    await notFound(bob.client.deployments.logPage({ params: { id: deploymentId } }), deploymentId);

    // Bob buys Alice's strategy and deploys it with his own paper credential.
    const strategyId = (await alice.client.strategies.list()).strategies[0]!.id;
    const listing = await alice.client.marketplace.create({ body: { strategyId, name: 'Scripted', price: 0 } });
    await bob.client.marketplace.purchase({ params: { id: listing.id }, body: {} });
    const bobCredential = (await bob.client.credentials.create({ body: { exchange: 'paper', label: 'bob paper' } })).id;
    const bought = await bob.client.deployments.create({ body: { strategyId: listing.id, credentialId: bobCredential, symbols: ['BTC/USDT:USDT'] } });
    await waitFor(
      'an order of the bought deployment',
      async () => (await bob.client.deployments.orders({ params: { id: bought.id } })).orders.length > 0,
      60_000,
    );
    expect((await bob.client.deployments.positions({ params: { id: bought.id } })).deploymentId).toBe(bought.id);
    // The buyer reads the service's lines (orders placed) but never the strategy's own ctx.log lines, as with its source.
    const boughtLog = await bob.client.deployments.logs({ params: { id: bought.id }, query: { limit: 1000 } });
    expect(boughtLog.some((l) => l.message.startsWith('Order placed'))).toBe(true);
    expect(boughtLog.filter((l) => l.message.startsWith('candle'))).toEqual([]);
    await notFound(alice.client.deployments.orders({ params: { id: bought.id } }), bought.id);
    await notFound(alice.client.deployments.positions({ params: { id: bought.id } }), bought.id);
    await notFound(alice.client.deployments.logs({ params: { id: bought.id } }), bought.id);
    await bob.client.deployments.delete({ params: { id: bought.id } });
  }, 90_000);
});

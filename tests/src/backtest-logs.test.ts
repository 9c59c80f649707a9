import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LogPageData, StratboxClient } from '@stratbox/client';
import { startTestService, type TestService } from './harness/in-process.js';
import { expectError } from './harness/client-errors.js';
import { waitFor } from './harness/deferred.js';
import { waitFinished } from './harness/wait-backtest.js';

/*
 * A backtest's log over real HTTP and the typed client: the lines its strategy wrote, kept when
 * the run ends (completed, failed, cancelled), served at `GET /api/backtests/:id/logs` in the
 * pages of a deployment's log (bare array, `X-Next-Cursor`), 404 for another user, 403 for a
 * backtest of a bought strategy (whose lines are kept for no one).
 */

const SYMBOL = 'BTC/USDT:USDT';

/** One line per candle: `bar <n> <close>`. */
const LOGGER = `
export const meta = { timeframe: '1h' };
let n = 0;
export function onCandle(ctx, c) {
  ctx.log('bar', n++, c.close > 0);
}
`;

/** Logs on each candle, then throws on the sixth. */
const THROWER = `
let n = 0;
export function onCandle(ctx, c) {
  ctx.log('before', n);
  if (n++ === 5) throw new Error('boom at six');
}
`;

/** Writes lines until the log limit stops it. */
const FLOODER = `
export function onCandle(ctx, c) {
  for (let i = 0; i < 20000; i++) ctx.log('flood', i);
}
`;

/** Slow on every candle, and logs on each. */
const SLOW = `
let n = 0;
export function onCandle(ctx, c) {
  let x = 0;
  for (let i = 0; i < 20000; i++) x += i;
  ctx.log('slow', n++);
}
`;

/** Every line of a backtest's log, page by page through the client, and the size of each page. */
async function allLines(client: StratboxClient, id: string, limit: number, since?: string) {
  const logs: LogPageData['logs'] = [];
  const pages: number[] = [];
  let cursor: string | undefined;
  for (let i = 0; i < 1_000; i++) {
    const page = await client.backtests.logPage({ params: { id }, query: { limit, ...(since ? { since } : {}), ...(cursor ? { cursor } : {}) } });
    logs.push(...page.logs);
    pages.push(page.logs.length);
    if (page.nextCursor === null) return { logs, pages };
    cursor = page.nextCursor;
  }
  throw new Error('paging did not end');
}

describe('backtest logs over HTTP and the client', () => {
  let service: TestService;
  let alice: { userId: string; apiKey: string; client: StratboxClient };
  let logger: string;

  beforeAll(async () => {
    // a generous cancel grace, so that a cancelled run always hands its lines back, however loaded the machine
    service = await startTestService({ sandbox: { size: 2, cancelGraceMs: 20_000 } });
    alice = await service.newUser('alice');
    logger = (await alice.client.strategies.create({ body: { name: 'logger', source: LOGGER } })).id;
  });
  afterAll(() => service.close());

  it('a completed run: every line in order, through the client in pages and over raw HTTP as a bare array with X-Next-Cursor', async () => {
    // ten days of hourly candles: 240 lines
    const created = await alice.client.backtests.create({ body: { strategyId: logger, symbols: [SYMBOL], startDate: '2025-01-01', endDate: '2025-01-10' } });
    const done = await waitFinished(alice.client, created.id);
    expect(done.status, JSON.stringify(done.error)).toBe('completed');

    const { logs, pages } = await allLines(alice.client, created.id, 7);
    expect(logs.map((l) => l.message)).toEqual(Array.from({ length: 240 }, (_, n) => `bar ${n} true`));
    expect(logs.every((l) => l.level === 'info')).toBe(true);
    expect(pages.slice(0, -1).every((n) => n === 7)).toBe(true);
    expect(pages).toHaveLength(Math.ceil(240 / 7));
    // each line carries the candle time it was written at: one hour apart, inside the range
    expect(logs[0]!.timestamp.startsWith('2025-01-01T')).toBe(true);
    for (let i = 1; i < logs.length; i++) expect(Date.parse(logs[i]!.timestamp) - Date.parse(logs[i - 1]!.timestamp)).toBe(3_600_000);

    // the default page: 200 lines, then the other 40
    const first = await alice.client.backtests.logPage({ params: { id: created.id } });
    expect(first.logs).toEqual(logs.slice(0, 200));
    expect(first.nextCursor).not.toBeNull();
    const second = await alice.client.backtests.logPage({ params: { id: created.id }, query: { cursor: first.nextCursor! } });
    expect(second).toEqual({ logs: logs.slice(200), nextCursor: null });
    // `backtests.logs` is the bare array of one page
    expect(await alice.client.backtests.logs({ params: { id: created.id }, query: { limit: 5 } })).toEqual(logs.slice(0, 5));

    // `since`: the lines at or after a time, paged with the same since
    const since = logs[100]!.timestamp;
    expect((await allLines(alice.client, created.id, 30, since)).logs).toEqual(logs.slice(100));

    // raw HTTP: the body is the bare array; the cursor travels in X-Next-Cursor, absent on the last page
    const url = `${service.baseUrl}/api/backtests/${created.id}/logs`;
    const headers = { authorization: `Bearer ${alice.apiKey}` };
    const response = await fetch(`${url}?limit=5`, { headers });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual(logs.slice(0, 5));
    const cursor = response.headers.get('x-next-cursor');
    expect(cursor).toBeTruthy();
    const next = await fetch(`${url}?limit=5&cursor=${encodeURIComponent(cursor!)}`, { headers });
    expect(await next.json()).toEqual(logs.slice(5, 10));
    const whole = await fetch(`${url}?limit=1000`, { headers });
    expect(await whole.json()).toEqual(logs);
    expect(whole.headers.get('x-next-cursor')).toBeNull();
    expect((await fetch(`${url}?cursor=bm9wZQ`, { headers })).status).toBe(400);
    expect((await fetch(`${url}?limit=1001`, { headers })).status).toBe(400);
  });

  it('a run whose strategy logs then throws fails, and the lines it wrote before are readable', async () => {
    const strategyId = (await alice.client.strategies.create({ body: { name: 'thrower', source: THROWER } })).id;
    const created = await alice.client.backtests.create({ body: { strategyId, symbols: [SYMBOL], startDate: '2025-02-01', endDate: '2025-02-01' } });
    const done = await waitFinished(alice.client, created.id);
    expect(done.status).toBe('failed');
    expect(done.error?.code).toBe('STRATEGY_ERROR');
    expect(done.error?.message).toContain('boom at six');
    const { logs } = await allLines(alice.client, created.id, 100);
    expect(logs.map((l) => l.message)).toEqual([0, 1, 2, 3, 4, 5].map((n) => `before ${n}`));
  });

  it('a run that hits the log limit fails with LOG_LIMIT and keeps the lines up to the limit', async () => {
    const strategyId = (await alice.client.strategies.create({ body: { name: 'flooder', source: FLOODER } })).id;
    const created = await alice.client.backtests.create({ body: { strategyId, symbols: [SYMBOL], startDate: '2025-02-01', endDate: '2025-02-01' } });
    const done = await waitFinished(alice.client, created.id);
    expect(done.status).toBe('failed');
    expect(done.error?.code).toBe('LOG_LIMIT');
    const { logs, pages } = await allLines(alice.client, created.id, 1000);
    expect(pages).toEqual(Array.from({ length: 10 }, () => 1000));
    expect(logs).toHaveLength(10_000);
    expect(logs.map((l) => l.message)).toEqual(Array.from({ length: 10_000 }, (_, i) => `flood ${i}`));
  });

  it('a running backtest has no lines yet; a cancelled one keeps the lines it wrote', async () => {
    const strategyId = (await alice.client.strategies.create({ body: { name: 'slow', source: SLOW } })).id;
    const created = await alice.client.backtests.create({
      body: { strategyId, symbols: [SYMBOL], startDate: '2024-01-01', endDate: '2024-12-31', timeframe: '1m' },
    });
    await waitFor('the slow run to make progress', async () => (await alice.client.backtests.get({ params: { id: created.id } })).progress > 0, 60_000);
    expect(await alice.client.backtests.logPage({ params: { id: created.id } })).toEqual({ logs: [], nextCursor: null });
    const cancelled = await alice.client.backtests.cancel({ params: { id: created.id } });
    expect(cancelled.status).toBe('cancelled');
    const logs = await waitFor('the cancelled run to keep its lines', async () => {
      const page = await alice.client.backtests.logs({ params: { id: created.id }, query: { limit: 1000 } });
      return page.length > 0 ? page : null;
    });
    expect(logs.map((l) => l.message)).toEqual(logs.map((_, n) => `slow ${n}`));
    expect((await alice.client.backtests.get({ params: { id: created.id } })).status).toBe('cancelled');
  });

  it("another user's backtest is 404 on the logs route, as a missing one", async () => {
    const created = await alice.client.backtests.create({ body: { strategyId: logger, symbols: [SYMBOL], startDate: '2025-03-01', endDate: '2025-03-01' } });
    await waitFinished(alice.client, created.id);
    expect(await alice.client.backtests.logs({ params: { id: created.id } })).toHaveLength(24);
    const bob = (await service.newUser('bob')).client;
    const foreign = await expectError(bob.backtests.logPage({ params: { id: created.id } }), 404, 'NOT_FOUND');
    const missingId = `bt_${'Q'.repeat(22)}`;
    const missing = await expectError(bob.backtests.logs({ params: { id: missingId } }), 404, 'NOT_FOUND');
    expect(foreign.message).toBe(`Backtest ${created.id} not found`);
    expect(missing.message).toBe(`Backtest ${missingId} not found`);
    const first = await alice.client.backtests.logPage({ params: { id: created.id }, query: { limit: 5 } });
    await expectError(bob.backtests.logs({ params: { id: created.id }, query: { cursor: first.nextCursor! } }), 404, 'NOT_FOUND');
  });

  it("a backtest of a bought strategy does not reveal the strategy's log to the buyer: 403, and no line is kept; the seller gets 404", async () => {
    const listing = await alice.client.marketplace.create({ body: { strategyId: logger, name: 'Logger', price: 0 } });
    const carol = await service.newUser('carol');
    await carol.client.marketplace.purchase({ params: { id: listing.id }, body: {} });

    // by listing id and by strategy id: both run the bought strategy
    for (const strategyId of [listing.id, logger]) {
      const run = await carol.client.backtests.create({ body: { strategyId, symbols: [SYMBOL], startDate: '2025-03-02', endDate: '2025-03-02' } });
      const done = await waitFinished(carol.client, run.id);
      expect(done.status, JSON.stringify(done.error)).toBe('completed');
      expect(done.metrics).not.toBeNull();
      const refused = await expectError(carol.client.backtests.logPage({ params: { id: run.id } }), 403, 'FORBIDDEN');
      expect(refused.message).toContain('bought');
      expect(refused.message).not.toContain('bar ');
      await expectError(carol.client.backtests.logs({ params: { id: run.id }, query: { limit: 1000 } }), 403, 'FORBIDDEN');
      const raw = await fetch(`${service.baseUrl}/api/backtests/${run.id}/logs`, { headers: { authorization: `Bearer ${carol.apiKey}` } });
      expect(raw.status).toBe(403);
      expect(await raw.text()).not.toContain('bar ');
      // nothing is kept under the buyer's backtest
      expect(await service.stratbox.store.backtests.listLogs(carol.userId, run.id, { limit: 10 })).toEqual([]);
      // the seller cannot read the buyer's backtest at all
      await expectError(alice.client.backtests.logs({ params: { id: run.id } }), 404, 'NOT_FOUND');
    }

    // the seller's own run of the same strategy keeps its log
    const own = await alice.client.backtests.create({ body: { strategyId: listing.id, symbols: [SYMBOL], startDate: '2025-03-02', endDate: '2025-03-02' } });
    await waitFinished(alice.client, own.id);
    expect((await alice.client.backtests.logs({ params: { id: own.id } })).map((l) => l.message)).toEqual(
      Array.from({ length: 24 }, (_, n) => `bar ${n} true`),
    );
  });

  it('a failed backtest of a bought strategy keeps no line either: the buyer sees only that it failed', async () => {
    const thrower = (await alice.client.strategies.create({ body: { name: 'thrower for sale', source: THROWER } })).id;
    const listing = await alice.client.marketplace.create({ body: { strategyId: thrower, name: 'Thrower', price: 0 } });
    const dave = await service.newUser('dave');
    await dave.client.marketplace.purchase({ params: { id: listing.id }, body: {} });
    const run = await dave.client.backtests.create({ body: { strategyId: listing.id, symbols: [SYMBOL], startDate: '2025-03-03', endDate: '2025-03-03' } });
    const done = await waitFinished(dave.client, run.id);
    expect(done.status).toBe('failed');
    expect(done.error?.message).not.toContain('boom');
    await expectError(dave.client.backtests.logPage({ params: { id: run.id } }), 403, 'FORBIDDEN');
    expect(await service.stratbox.store.backtests.listLogs(dave.userId, run.id, { limit: 10 })).toEqual([]);

    // the author's own run of it fails the same way, and keeps its lines
    const own = await alice.client.backtests.create({ body: { strategyId: thrower, symbols: [SYMBOL], startDate: '2025-03-03', endDate: '2025-03-03' } });
    const failed = await waitFinished(alice.client, own.id);
    expect(failed.error?.message).toContain('boom at six');
    expect(await alice.client.backtests.logs({ params: { id: own.id } })).toHaveLength(6);
  });
});

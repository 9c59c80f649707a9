import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CreateBacktestBody, NOTIFICATION_EVENT_CATALOGUE } from '@stratbox/contract';
import { createStratbox, type Stratbox } from '../create-stratbox.js';
import { createMarketData } from '../market-data/composite-market-data.js';
import type { MarketData } from '../ports/market-data.js';
import { createSilentLogger } from '../ports/logger.js';
import type { NotificationEventRecord } from '../ports/store.js';
import { createMemoryStore } from '../testing/memory-store.js';
import { recordBacktestEnd } from './run-events.js';

/*
 * The run events (`backtest.completed`/`.failed`, `optimization.completed`/`.failed`) written by
 * the real workers: real sandbox child processes, the default synthetic candles (or none, to make
 * a run fail for want of data). What is checked is the user's outbox.
 */

const SYMBOL = 'BTC/USDT:USDT';
const FINAL = ['completed', 'failed', 'cancelled'];
const QUICK = `export const meta = { timeframe: '1h' };\nexport function onCandle(ctx, c) { if (!ctx.position(c.symbol)) ctx.buy(c.symbol, { size: 0.1 }); else ctx.close(c.symbol); }`;
const THROWS = `export const meta = { timeframe: '1h' };\nexport function onCandle() { throw new Error('no idea what to do'); }`;
const ENTRY = `export const meta = { timeframe: '1h', params: { entry: { type: 'int', default: 0, min: 0, max: 40 } } };
let k = -1;
export function onCandle(ctx, c) { k++; if (k === ctx.params.entry) ctx.buy(c.symbol, { size: 1 }); }`;

let stratbox: Stratbox;
let userId: string;
let otherId: string;
/** When true, the market has no candles at all (runs fail with DATA_NOT_FOUND). */
let noCandles = false;

beforeAll(async () => {
  const store = createMemoryStore();
  const real = createMarketData({ store });
  const marketData: MarketData = {
    ...real,
    async getCandles(request) {
      const answer = await real.getCandles(request);
      if (!noCandles) return answer;
      const empty = new Float64Array(0);
      return { ...answer, series: { ...answer.series, length: 0, time: empty, open: empty, high: empty, low: empty, close: empty, volume: empty } };
    },
  };
  stratbox = createStratbox({ store, marketData, logger: createSilentLogger(), sandbox: { size: 1, cpuTimeMs: 60_000 } });
  await stratbox.start();
  userId = (await stratbox.users.createUser('trader')).userId;
  otherId = (await stratbox.users.createUser('other')).userId;
}, 60_000);

afterAll(() => stratbox?.close());

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string): Promise<T> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const outbox = (user: string) => stratbox.store.notificationEvents.list(user, { limit: 50 });
const ofSubject = async (user: string, id: string) => (await outbox(user)).filter((e) => e.subjectId === id);

async function strategy(source: string) {
  return stratbox.strategies.create(userId, { name: 's', description: '', source, marketType: 'LINEAR' });
}

async function runBacktest(source: string) {
  const s = await strategy(source);
  const created = await stratbox.backtests.create(
    userId,
    CreateBacktestBody.parse({ strategyId: s.id, symbols: [SYMBOL], startDate: '2025-01-01', endDate: '2025-01-03' }),
  );
  const done = await until(
    () => stratbox.backtests.get(userId, created.id),
    (b) => FINAL.includes(b.status),
    `backtest ${created.id}`,
  );
  return { strategyId: s.id, done };
}

function parsed(event: NotificationEventRecord) {
  return NOTIFICATION_EVENT_CATALOGUE[event.type].data.parse(event.data);
}

describe('run events', () => {
  it('a completed backtest writes one backtest.completed to its owner, with its headline metrics', { timeout: 120_000 }, async () => {
    const { strategyId, done } = await runBacktest(QUICK);
    expect(done.status).toBe('completed');
    const events = await ofSubject(userId, done.id);
    expect(events.map((e) => e.type)).toEqual(['backtest.completed']);
    const [event] = events;
    expect(event).toMatchObject({ userId, severity: 'info', subjectKind: 'backtest', subjectId: done.id, time: done.finishedAt });
    const metrics = done.metrics!;
    expect(metrics.tradeCount).toBeGreaterThan(0);
    expect(parsed(event!)).toEqual({
      backtestId: done.id,
      strategyId,
      metrics: { totalReturn: metrics.totalReturn, maxDrawdown: metrics.maxDrawdown, sharpe: metrics.sharpe, tradeCount: metrics.tradeCount },
    });
    const sign = metrics.totalReturn! >= 0 ? '+' : '';
    expect(event!.summary).toBe(`Backtest ${done.id} completed: ${sign}${(metrics.totalReturn! * 100).toFixed(2)} %, ${metrics.tradeCount} trades`);
    expect(await ofSubject(otherId, done.id)).toEqual([]);
    expect(await outbox(otherId)).toEqual([]);
  });

  it('a failed backtest writes one backtest.failed with its error', { timeout: 120_000 }, async () => {
    const { strategyId, done } = await runBacktest(THROWS);
    expect(done.status).toBe('failed');
    const events = await ofSubject(userId, done.id);
    expect(events.map((e) => e.type)).toEqual(['backtest.failed']);
    expect(events[0]).toMatchObject({ userId, severity: 'warning', subjectKind: 'backtest', summary: `Backtest ${done.id} failed: STRATEGY_ERROR` });
    expect(parsed(events[0]!)).toEqual({ backtestId: done.id, strategyId, error: { code: done.error!.code, message: done.error!.message } });
    expect(done.error!.code).toBe('STRATEGY_ERROR');
  });

  it('a cancelled backtest writes nothing', { timeout: 120_000 }, async () => {
    // about a millisecond of work per candle: 4,320 one-minute candles run for seconds, with progress
    const s = await strategy(`export const meta = { timeframe: '1m' };\nexport function onCandle() { let x = 0; for (let i = 0; i < 20000; i++) x += i; }`);
    const created = await stratbox.backtests.create(
      userId,
      CreateBacktestBody.parse({ strategyId: s.id, symbols: [SYMBOL], startDate: '2025-01-01', endDate: '2025-01-03' }),
    );
    await until(
      async () => (await stratbox.store.backtests.findById(userId, created.id))?.processedBars ?? 0,
      (bars) => bars > 0,
      'the run to make progress',
    );
    await stratbox.backtests.cancel(userId, created.id);
    // the worker meters the cancelled run once its sandbox has stopped: then it has done all it does
    await until(
      async () => (await stratbox.store.backtests.findById(userId, created.id))?.computeMs ?? 0,
      (ms) => ms > 0,
      'the cancelled run to be metered',
    );
    expect((await stratbox.backtests.get(userId, created.id)).status).toBe('cancelled');
    expect(await ofSubject(userId, created.id)).toEqual([]);
  });

  it('the end of a backtest is written once, however often it is recorded (a redelivered job)', async () => {
    const { done } = await runBacktest(QUICK);
    const record = (await stratbox.store.backtests.findById(userId, done.id))!;
    await stratbox.store.transaction((tx) => recordBacktestEnd(tx, record, { totalReturn: 1, maxDrawdown: 0, sharpe: null, tradeCount: 1 }));
    const events = await ofSubject(userId, done.id);
    expect(events).toHaveLength(1);
    expect(parsed(events[0]!)).toMatchObject({ metrics: { tradeCount: done.metrics!.tradeCount } });
  }, 120_000);

  it('a completed optimization writes one optimization.completed with its trials and best score', { timeout: 180_000 }, async () => {
    const s = await strategy(ENTRY);
    const created = await stratbox.optimizations.create(userId, {
      strategyId: s.id,
      symbols: [SYMBOL],
      startDate: '2025-01-01',
      endDate: '2025-01-04',
      searchSpace: { entry: { values: [0, 10, 20] } },
      objective: 'totalReturn',
    });
    const done = await until(
      () => stratbox.optimizations.get(userId, created.id),
      (o) => FINAL.includes(o.status),
      'the optimization',
    );
    expect(done.status, JSON.stringify(done.error)).toBe('completed');
    const events = await ofSubject(userId, created.id);
    expect(events.map((e) => e.type)).toEqual(['optimization.completed']);
    expect(events[0]).toMatchObject({ userId, severity: 'info', subjectKind: 'optimization' });
    const record = (await stratbox.store.optimizations.findById(userId, created.id))!;
    expect(record.best).not.toBeNull();
    expect(parsed(events[0]!)).toEqual({ optimizationId: created.id, strategyId: s.id, trialsDone: 3, bestScore: record.best!.objective });
    // the best's full backtest, queued by the optimization, tells its own end
    const backtestId = record.best!.backtestId!;
    await until(
      () => ofSubject(userId, backtestId),
      (e) => e.length > 0,
      'the best backtest to end',
    );
    expect((await ofSubject(userId, backtestId)).map((e) => e.type)).toEqual(['backtest.completed']);
    expect(await ofSubject(otherId, created.id)).toEqual([]);
  });

  it('an optimization with no candles writes one optimization.failed, and its failed run no backtest event', { timeout: 120_000 }, async () => {
    const s = await strategy(ENTRY);
    noCandles = true;
    try {
      const created = await stratbox.optimizations.create(userId, {
        strategyId: s.id,
        symbols: [SYMBOL],
        startDate: '2025-01-01',
        endDate: '2025-01-04',
        searchSpace: { entry: { values: [0, 10] } },
        objective: 'totalReturn',
      });
      const done = await until(
        () => stratbox.optimizations.get(userId, created.id),
        (o) => FINAL.includes(o.status),
        'the optimization',
      );
      expect(done.status).toBe('failed');
      const events = await ofSubject(userId, created.id);
      expect(events.map((e) => e.type)).toEqual(['optimization.failed']);
      expect(events[0]).toMatchObject({ severity: 'warning', summary: `Optimization ${created.id} failed after 0 trials: DATA_NOT_FOUND` });
      expect(parsed(events[0]!)).toEqual({
        optimizationId: created.id,
        strategyId: s.id,
        trialsDone: 0,
        error: { code: 'DATA_NOT_FOUND', message: done.error!.message },
      });
    } finally {
      noCandles = false;
    }
  });
});

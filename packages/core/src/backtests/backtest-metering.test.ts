import { afterEach, describe, expect, it } from 'vitest';
import { CreateBacktestBody } from '@stratbox/contract';
import { createStratbox, type Stratbox, type StratboxConfig } from '../create-stratbox.js';
import { importCandlesCsv } from '../market-data/csv-import.js';
import { createSilentLogger } from '../ports/logger.js';
import { createInProcessJobQueue } from '../queue/in-process-job-queue.js';
import { createMemoryStore } from '../testing/memory-store.js';

const FINAL = ['completed', 'failed', 'cancelled'];
const services: Stratbox[] = [];
afterEach(async () => {
  await Promise.all(services.splice(0).map((s) => s.close()));
});

async function service(config: Partial<StratboxConfig> = {}) {
  const stratbox = createStratbox({ store: createMemoryStore(), logger: createSilentLogger(), sandbox: { size: 1, cpuTimeMs: 2_000 }, ...config });
  services.push(stratbox);
  await stratbox.start();
  const { userId } = await stratbox.users.createUser('trader');
  return { stratbox, userId };
}

async function strategy(stratbox: Stratbox, userId: string, source: string) {
  return stratbox.strategies.create(userId, { name: 's', description: '', source, marketType: 'LINEAR' });
}

function backtest(stratbox: Stratbox, userId: string, strategyId: string, range = { startDate: '2025-01-01', endDate: '2025-01-03' }) {
  return stratbox.backtests.create(userId, CreateBacktestBody.parse({ strategyId, symbols: ['BTC/USDT:USDT'], ...range }));
}

async function settled(stratbox: Stratbox, userId: string, id: string) {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const record = await stratbox.store.backtests.findById(userId, id);
    if (record && FINAL.includes(record.status)) return record;
    if (Date.now() > deadline) throw new Error(`backtest ${id} did not settle: ${record?.status}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

async function until(check: () => Promise<boolean>, what: string) {
  const deadline = Date.now() + 90_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

async function meteredMs(stratbox: Stratbox, userId: string) {
  const { period } = await stratbox.billing.usage.context(userId);
  return (await stratbox.store.usageCounters.find(userId, period.start))?.computeMs ?? 0;
}

const BURN_THEN_THROW = `export const meta = { timeframe: '1h' };
export function onCandle(ctx, c) { let x = 0; for (let i = 0; i < 3e6; i++) x += i; throw new Error('gave up after ' + x); }`;
const LOOP = `export const meta = { timeframe: '1h' };\nexport function onCandle() { for (;;) {} }`;
const QUICK = `export const meta = { timeframe: '1h' };\nexport function onCandle(ctx, c) { if (!ctx.position(c.symbol)) ctx.buy(c.symbol, { size: 0.1 }); }`;

describe('compute metering', () => {
  it('meters a run that throws, and one that times out, for the CPU it used', { timeout: 120_000 }, async () => {
    const { stratbox, userId } = await service();
    const thrower = await strategy(stratbox, userId, BURN_THEN_THROW);
    const failed = await settled(stratbox, userId, (await backtest(stratbox, userId, thrower.id)).id);
    expect(failed.status).toBe('failed');
    expect(failed.error?.code).toBe('STRATEGY_ERROR');
    expect(failed.computeMs).toBeGreaterThan(10);
    expect(await meteredMs(stratbox, userId)).toBe(failed.computeMs);

    const looper = await strategy(stratbox, userId, LOOP);
    const timedOut = await settled(stratbox, userId, (await backtest(stratbox, userId, looper.id)).id);
    expect(timedOut.status).toBe('failed');
    expect(timedOut.error?.code).toBe('TIMEOUT');
    expect(timedOut.computeMs).toBeGreaterThanOrEqual(2_000);
    expect(await meteredMs(stratbox, userId)).toBe(failed.computeMs + timedOut.computeMs);
    expect((await stratbox.billing.usage.get(userId)).compute.used).toBe(Math.floor((failed.computeMs + timedOut.computeMs) / 1000));
  });

  it('meters a cancelled run', async () => {
    const { stratbox, userId } = await service({ sandbox: { size: 1, cpuTimeMs: 60_000 } });
    // about a millisecond of work per candle: 4,320 one-minute candles run for seconds, with progress
    const slow = await strategy(
      stratbox,
      userId,
      `export const meta = { timeframe: '1m' };\nexport function onCandle() { let x = 0; for (let i = 0; i < 20000; i++) x += i; }`,
    );
    const created = await backtest(stratbox, userId, slow.id);
    await until(async () => ((await stratbox.store.backtests.findById(userId, created.id))?.processedBars ?? 0) > 0, 'the run to make progress');
    await stratbox.backtests.cancel(userId, created.id);
    // the worker meters the run once its sandbox has stopped
    await until(async () => ((await stratbox.store.backtests.findById(userId, created.id))?.computeMs ?? 0) > 0, 'the cancelled run to be metered');
    const cancelled = (await stratbox.store.backtests.findById(userId, created.id))!;
    expect(cancelled.status).toBe('cancelled');
    expect(await meteredMs(stratbox, userId)).toBe(cancelled.computeMs);
  }, 120_000);

  it('accumulates short runs exactly: the meter is the sum of every run', { timeout: 120_000 }, async () => {
    const { stratbox, userId } = await service();
    const quick = await strategy(stratbox, userId, QUICK);
    const runs = [];
    for (let i = 0; i < 6; i++) runs.push(await settled(stratbox, userId, (await backtest(stratbox, userId, quick.id)).id));
    expect(runs.every((r) => r.status === 'completed' && r.computeMs >= 1)).toBe(true);
    expect(await meteredMs(stratbox, userId)).toBe(runs.reduce((sum, r) => sum + r.computeMs, 0));
  });
});

describe('queueing', () => {
  it('fails a backtest the queue would not take, with a reason, and gives its plan slot back', async () => {
    const queue = createInProcessJobQueue();
    const { stratbox, userId } = await service({ queue });
    const quick = await strategy(stratbox, userId, QUICK);
    await queue.close(); // from now on it refuses every job
    await expect(backtest(stratbox, userId, quick.id)).rejects.toMatchObject({ code: 'UNAVAILABLE', status: 503 });
    const { backtests } = await stratbox.backtests.list(userId, {});
    expect(backtests).toHaveLength(1);
    expect(backtests[0]).toMatchObject({ status: 'failed', error: { code: 'UNAVAILABLE' } });
    expect((await stratbox.billing.usage.get(userId)).backtests.used).toBe(0);
  });
});

describe('warm-up candles', () => {
  /** Records the time of every onCandle call in a trade: buys on the first call, closes on the second. */
  const FIRST_CALL = (warmup: number) => `export const meta = { timeframe: '1h', warmup: ${warmup} };
let calls = 0;
export function onCandle(ctx, c) {
  calls++;
  if (calls === 1) ctx.buy(c.symbol, { size: 0.1 });
  if (calls === 2) ctx.close(c.symbol);
}`;

  it('loads exactly warmup - 1 candles before the start, so onCandle first runs on the start date', { timeout: 120_000 }, async () => {
    const { stratbox, userId } = await service();
    const entries: string[] = [];
    for (const warmup of [3, 50]) {
      const s = await strategy(stratbox, userId, FIRST_CALL(warmup));
      const done = await settled(stratbox, userId, (await backtest(stratbox, userId, s.id)).id);
      expect(done.status).toBe('completed');
      // progress counts the candles of the range, all traded or marked; the warm-up candles before it are not counted
      expect(done.totalBars).toBe(3 * 24);
      expect(done.processedBars).toBe(3 * 24);
      const detail = await stratbox.backtests.get(userId, done.id);
      const trades = detail.trades ?? [];
      expect(trades[0]?.entryTime.slice(0, 10)).toBe('2025-01-01');
      entries.push(trades[0]!.entryTime);
    }
    // the first onCandle is on the start date's first candle, however long the warm-up
    expect(entries[1]).toBe(entries[0]);
  });

  it('fails the run with WARMUP_DATA_MISSING when the candles before the start are not there', { timeout: 120_000 }, async () => {
    const { stratbox, userId } = await service();
    const rows = ['time,open,high,low,close,volume'];
    for (let t = Date.parse('2025-01-01T00:00:00Z'); t < Date.parse('2025-01-04T00:00:00Z'); t += 3_600_000) rows.push(`${t},100,101,99,100,1`);
    await importCandlesCsv({ store: stratbox.store, symbol: 'BTC/USDT:USDT', timeframe: '1h', csv: rows.join('\n') });
    const cold = await strategy(stratbox, userId, FIRST_CALL(1));
    expect((await settled(stratbox, userId, (await backtest(stratbox, userId, cold.id)).id)).status).toBe('completed');
    const warm = await strategy(stratbox, userId, FIRST_CALL(10));
    const failed = await settled(stratbox, userId, (await backtest(stratbox, userId, warm.id)).id);
    expect(failed.status).toBe('failed');
    expect(failed.error?.code).toBe('WARMUP_DATA_MISSING');
    expect(failed.error?.message).toMatch(/needs 9 1h candles of BTC\/USDT:USDT before 2025-01-01/);
  });
});

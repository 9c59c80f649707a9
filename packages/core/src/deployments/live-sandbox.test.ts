import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createLiveSandbox } from './live-sandbox.js';
import { stuckWorker } from '../sandbox/testing/stuck-worker.js';
import type { LiveAccountState } from './live-session.js';

const SMA = `
export const meta = { timeframe: '1m', warmup: 3, params: { fast: { type: 'int', default: 2 }, slow: { type: 'int', default: 3 } } };
export function onCandle(ctx, candle) {
  const f = ctx.indicators.sma(candle.symbol, ctx.params.fast);
  const s = ctx.indicators.sma(candle.symbol, ctx.params.slow);
  ctx.log('candle', candle.symbol, candle.close, f, s, ctx.mode);
  if (f > s && !ctx.position(candle.symbol)) ctx.buy(candle.symbol, { quantity: 1, stopLoss: candle.close * 0.5 });
  if (f < s && ctx.position(candle.symbol)) ctx.close(candle.symbol);
}
export function onOrder(ctx, order) { ctx.log('order', order.id, order.status); }
`;

const flat: LiveAccountState = { cash: 1000, equity: 1000, positions: [], orders: [] };
const candle = (time: number, close: number) => ({ symbol: 'BTC/USDT:USDT', time, open: close, high: close, low: close, close, volume: 1 });

describe('live sandbox', () => {
  // 1 s per call: loading a session in a fresh child took over 200 ms of CPU on a loaded machine.
  const sandbox = createLiveSandbox({ callCpuTimeMs: 1000 });
  afterAll(() => sandbox.close());

  it('runs onCandle on closed candles, returns order intents and logs, and feeds onOrder', async () => {
    const session = await sandbox.open({ source: SMA, symbols: ['BTC/USDT:USDT'], params: {}, seed: 1, startTime: 0 });
    expect(session.meta.timeframe).toBe('1m');
    await session.history([candle(0, 10), candle(60_000, 10)]);
    const r1 = await session.candle(candle(120_000, 12), flat);
    expect(r1.intents).toEqual([{ kind: 'place', order: expect.objectContaining({ id: 'o1', side: 'buy', type: 'market', quantity: 1, stopLoss: 6 }) }]);
    expect(r1.logs[0]!.message).toContain('candle BTC/USDT:USDT 12');
    const long: LiveAccountState = {
      ...flat,
      positions: [
        { symbol: 'BTC/USDT:USDT', side: 'long', quantity: 1, entryPrice: 12, entryTime: 180_000, margin: 12, liquidationPrice: null, unrealizedPnl: 0 },
      ],
    };
    const r2 = await session.order(
      {
        id: 'o1',
        symbol: 'BTC/USDT:USDT',
        side: 'buy',
        type: 'market',
        status: 'filled',
        quantity: 1,
        price: 12,
        fee: 0,
        time: 180_000,
        reason: null,
        tag: null,
      },
      long,
    );
    expect(r2.logs.map((l) => l.message)).toEqual(['order o1 filled']);
    // the stop-loss attached at the fill closes the position when a candle crosses it
    const r3 = await session.candle({ ...candle(180_000, 13), low: 5 }, long);
    expect(r3.intents[0]).toEqual({ kind: 'place', order: expect.objectContaining({ closeAll: true, exit: 'stopLoss', side: 'sell', quantity: 1 }) });
    await session.close();
  }, 30_000);

  it('refuses bad params and reports a strategy error with its line', async () => {
    await expect(sandbox.open({ source: SMA, symbols: ['BTC/USDT:USDT'], params: { fast: 'x' }, seed: 1, startTime: 0 })).rejects.toMatchObject({
      code: 'INVALID_PARAMS',
    });
    const session = await sandbox.open({
      source: 'export function onCandle(ctx, c) {\n  throw new Error("boom");\n}',
      symbols: ['BTC/USDT:USDT'],
      params: {},
      seed: 1,
      startTime: 0,
    });
    await expect(session.candle(candle(0, 1), flat)).rejects.toMatchObject({ code: 'STRATEGY_ERROR', message: expect.stringMatching(/boom.*line 2/) });
    await session.close();
  }, 30_000);

  it('stops an endless loop with TIMEOUT per call', async () => {
    const session = await sandbox.open({ source: 'export function onCandle() { for (;;) {} }', symbols: ['BTC/USDT:USDT'], params: {}, seed: 1, startTime: 0 });
    await expect(session.candle(candle(0, 1), flat)).rejects.toMatchObject({ code: 'TIMEOUT' });
    await session.close();
  }, 30_000);

  describe('a strategy that exhausts its memory', () => {
    const small = createLiveSandbox({ callCpuTimeMs: 5000, memoryLimitBytes: 16 * 1024 * 1024 });
    afterAll(() => small.close());
    const cases: [string, string][] = [
      ['a memory bomb', 'const a = []; for (;;) a.push({ x: a.length, y: [a.length] });'],
      ['a huge string', "let s = 'x'; for (;;) s += s;"],
      ['a huge typed array', 'const a = new Float64Array(1e8); a.fill(1);'],
    ];
    for (const [name, body] of cases) {
      it(`reports MEMORY_LIMIT for ${name}`, async () => {
        const session = await small.open({
          source: `export function onCandle(ctx, c) { ${body} }`,
          symbols: ['BTC/USDT:USDT'],
          params: {},
          seed: 1,
          startTime: 0,
        });
        const error = await session.candle(candle(0, 1), flat).catch((e: unknown) => e);
        expect(error).toMatchObject({ code: 'MEMORY_LIMIT', message: expect.stringMatching(/memory/) });
        await session.close();
      }, 30_000);
    }
  });

  it('reports a killed child as crashed', async () => {
    const session = await sandbox.open({ source: 'export function onCandle() {}', symbols: ['BTC/USDT:USDT'], params: {}, seed: 1, startTime: 0 });
    process.kill(session.pid!, 'SIGKILL');
    await expect(session.crashed).resolves.toMatchObject({ code: 'CRASHED' });
    await session.close();
  }, 30_000);

  it('kills a child that never gets ready and rejects with TIMEOUT at the start stage', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'stratbox-stuck-'));
    try {
      const { path, pidFile } = stuckWorker(dir);
      // Long enough for the stuck child to write its pid even on a loaded machine.
      const stuck = createLiveSandbox({ workerPath: path, readyTimeoutMs: 3000 });
      // How soon is readyTimeoutMs's business (the message names it); a child never timed out fails the test by its timeout.
      const error = await stuck
        .open({ source: 'export function onCandle() {}', symbols: ['BTC/USDT:USDT'], params: {}, seed: 1, startTime: 0 })
        .catch((e: unknown) => e);
      expect(error).toMatchObject({ code: 'TIMEOUT', details: { stage: 'start' }, message: expect.stringContaining('did not start within 3000 ms') });
      const pid = Number(readFileSync(pidFile, 'utf8'));
      expect(() => process.kill(pid, 0)).toThrow();
      expect(stuck.stats().sessions).toBe(0);
      await stuck.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 30_000);
});

import { afterAll, describe, expect, it } from 'vitest';
import { StratboxError } from '../../errors/stratbox-error.js';
import { createStrategySourceChecker } from '../../sandbox/strategy-source-checker.js';
import { createSandboxPool } from './backtest-pool.js';

const TS_STRATEGY = `interface Candle { symbol: string; close: number }
type Ctx = any;
export const meta = { timeframe: '1h' as const, warmup: 2 };
export function onCandle(ctx: Ctx, candle: Candle): void {
  const x: number = candle.close;
  if (x > 0) ctx.log(x satisfies number);
}`;

describe('inspectStrategy and the source checker', () => {
  const pool = createSandboxPool({ size: 1, inspectCpuTimeMs: 300 });
  const check = createStrategySourceChecker(pool);
  afterAll(() => pool.close());

  it('reads meta and exports by evaluating the module in the sandbox', async () => {
    const info = await pool.inspectStrategy(TS_STRATEGY.replace('warmup: 2', 'warmup: 1 + 1, params: { n: { type: "int", default: 3 } }'));
    expect(info.meta).toEqual({ timeframe: '1h', warmup: 2, params: { n: { type: 'int', default: 3 } } });
    expect(info.exports).toEqual({ meta: 'object', onCandle: 'function' });
  });

  it('refuses a bad meta, a throwing module, a module that never finishes loading, a non-function onCandle', async () => {
    const cases: [string, RegExp][] = [
      ['export const meta = { warmup: -1 };\nexport function onCandle() {}', /meta\.warmup/],
      ["throw new Error('boom');\nexport function onCandle() {}", /boom/],
      ['while (true) {}\nexport function onCandle() {}', /CPU time/],
      ['export const onCandle = 5;', /onCandle/],
    ];
    for (const [source, message] of cases) {
      const error = await Promise.resolve(check(source)).then(
        () => null,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(StratboxError);
      expect((error as StratboxError).code).toBe('VALIDATION_FAILED');
      expect((error as StratboxError).message).toMatch(message);
    }
    await expect(check(TS_STRATEGY)).resolves.toBeUndefined();
  });

  it('points a runtime error at the line and column of the TypeScript source', async () => {
    const source = `interface Candle { close: number }
type Ctx = { log(...a: unknown[]): void };

export function onCandle(ctx: Ctx, candle: Candle): void {
  const missing: any = null;
  ctx.log(candle.close);
  missing.field = 1;
}`;
    const error = (await pool
      .runBacktest({ source, candles: { 'BTC/USDT': [{ time: 0, open: 1, high: 1, low: 1, close: 1, volume: 1 }] } })
      .catch((e: unknown) => e)) as { code: string; message: string; details: { line: number; column: number; stack: string }; logs: unknown[] };
    expect(error.code).toBe('STRATEGY_ERROR');
    expect(error.message).toMatch(/TypeError.*\(line 7, column \d+\)/);
    expect(error.details).toMatchObject({ line: 7 });
    expect(error.details.stack).toMatch(/onCandle \(strategy\.ts:7:\d+\)/);
    expect(error.logs).toHaveLength(1);
  });
});

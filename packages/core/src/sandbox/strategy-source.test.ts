import { afterAll, describe, expect, it } from 'vitest';
import { StratboxError } from '../errors/stratbox-error.js';
import { createSandboxPool } from './sandbox-pool.js';
import { createStrategySourceChecker } from './strategy-source-checker.js';
import { checkStrategySource, compileStrategySource, compileStrategySourceAsync, compileWithService } from './strategy-source.js';

function details(fn: () => unknown) {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(StratboxError);
    expect((error as StratboxError).code).toBe('VALIDATION_FAILED');
    return (error as StratboxError).details as { path: string; message: string; line?: number; column?: number }[];
  }
  throw new Error('expected VALIDATION_FAILED');
}

const TS_STRATEGY = `interface Candle { symbol: string; close: number }
type Ctx = any;
export const meta = { timeframe: '1h' as const, warmup: 2 };
export function onCandle(ctx: Ctx, candle: Candle): void {
  const x: number = candle.close;
  if (x > 0) ctx.log(x satisfies number);
}`;

describe('checkStrategySource', () => {
  it('strips TypeScript types', () => {
    const compiled = compileStrategySource(TS_STRATEGY);
    expect(compiled.code).not.toMatch(/interface|: number|satisfies/);
    expect(compiled.exports.sort()).toEqual(['meta', 'onCandle']);
  });

  it('reports a syntax error with a 1-based line and column', () => {
    const [problem] = details(() => checkStrategySource('export function onCandle(ctx, c) {\n  const x = ;\n}'));
    expect(problem).toMatchObject({ path: 'source', line: 2, column: 13 });
    expect(problem!.message).toMatch(/Unexpected/);
  });

  it('refuses imports, a missing onCandle and an empty source', () => {
    expect(details(() => checkStrategySource(`import fs from 'node:fs';\nexport function onCandle() { fs.readFileSync('/etc/passwd') }`))[0]).toMatchObject({
      line: 1,
      message: expect.stringMatching(/cannot import/),
    });
    expect(details(() => checkStrategySource('export function onBar() {}'))[0]!.message).toMatch(/onCandle/);
    expect(details(() => checkStrategySource('   '))[0]!.message).toMatch(/empty/);
  });
});

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

describe('the compiler service', () => {
  it('refuses a source that kills esbuild with 400, and compiles the next source with a fresh service', async () => {
    // past the shape check, 250,000 nested brackets overflow esbuild's own stack and kill its process
    const bomb = `export function onCandle(ctx,c){ const x = ${'['.repeat(250_000)}${']'.repeat(250_000)}; }`;
    const refused = await compileWithService(bomb).then(
      () => null,
      (e: unknown) => e,
    );
    expect(refused).toMatchObject({ code: 'VALIDATION_FAILED', status: 400, details: [{ code: 'SOURCE_TOO_COMPLEX' }] });
    await expect(compileStrategySourceAsync('export function onCandle(ctx, c) {}')).resolves.toMatchObject({ exports: ['onCandle'] });
  });
});

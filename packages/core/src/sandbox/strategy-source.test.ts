import { describe, expect, it } from 'vitest';
import { StratboxError } from '../errors/stratbox-error.js';
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

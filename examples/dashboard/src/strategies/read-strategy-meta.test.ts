import { describe, expect, it } from 'vitest';
import { readStrategyMeta } from './read-strategy-meta.js';

const SOURCE = `export const meta = {
  timeframe: '4h',
  params: {
    fast: { type: 'int', default: 10, min: 2, max: 1_000, description: "Fast \\"SMA\\"" },
    stop: { type: 'float', default: -0.05 },
    mode: { type: 'enum', values: ['trend', 'revert'], default: 'trend' },
    short: { type: 'bool', default: false },
    label: { type: 'string', maxLength: 20 },
    computed: { type: 'int', default: 2 * 5 },
  },
} as const;
export function onCandle(ctx, candle) {}
`;

describe('readStrategyMeta', () => {
  it('reads the timeframe and every parameter written as a literal, in order', () => {
    const meta = readStrategyMeta(SOURCE);
    expect(meta.found).toBe(true);
    expect(meta.timeframe).toBe('4h');
    expect(Object.keys(meta.params)).toEqual(['fast', 'stop', 'mode', 'short', 'label']);
    expect(meta.params.fast).toEqual({ type: 'int', default: 10, min: 2, max: 1000, description: 'Fast "SMA"' });
    expect(meta.params.stop).toEqual({ type: 'float', default: -0.05 });
    expect(meta.params.mode).toEqual({ type: 'enum', values: ['trend', 'revert'], default: 'trend' });
    expect(meta.params.short).toEqual({ type: 'bool', default: false });
    expect(meta.params.label).toEqual({ type: 'string', maxLength: 20 });
  });

  it('lists a computed parameter as unreadable instead of evaluating it', () => {
    expect(readStrategyMeta(SOURCE).unreadable).toEqual(['computed']);
  });

  it('locates a meta path in the source, down to the deepest part written', () => {
    const meta = readStrategyMeta(SOURCE);
    const at = meta.locate('meta.params.fast.min')!;
    expect(SOURCE.slice(at.from, at.to)).toBe('min: 2');
    const missing = meta.locate('meta.params.nope')!;
    expect(SOURCE.slice(missing.from, missing.to)).toMatch(/^params: \{/);
  });

  it('reads TypeScript with an annotation, and a strategy without meta', () => {
    const ts = readStrategyMeta("const meta: Record<string, unknown> = { timeframe: '1d' };\nexport { meta };");
    expect(ts.timeframe).toBe('1d');
    expect(readStrategyMeta('export function onCandle() {}')).toMatchObject({ found: false, params: {}, unreadable: [] });
  });
});

import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { createSandboxPool } from './backtest-pool.js';
import { fingerprintResult, goldenCorpus, type GoldenFingerprint } from './golden-corpus.js';

/**
 * Golden equality: every case of the corpus gives exactly the trades, equity points and metrics
 * recorded from the engine as it was before the runtime moved into typed modules (see
 * golden-corpus.ts). `UPDATE_GOLDEN=1` records them again, only for a change of the model that
 * docs/backtest-model.md describes.
 */
const FIXTURE = fileURLToPath(new URL('./golden-fingerprints.json', import.meta.url));
const recorded: Record<string, GoldenFingerprint> = existsSync(FIXTURE) ? JSON.parse(readFileSync(FIXTURE, 'utf8')) : {};
const update = process.env.UPDATE_GOLDEN === '1';

describe('golden corpus of the fill and account model', () => {
  const pool = createSandboxPool({ size: 1, cpuTimeMs: 60_000 });
  const produced: Record<string, GoldenFingerprint> = {};
  afterAll(async () => {
    await pool.close();
    if (update) writeFileSync(FIXTURE, `${JSON.stringify(produced, null, 2)}\n`);
  });

  const cases = goldenCorpus();
  it('covers what the model does: every order type, exits, leverage with liquidations, SPOT, two symbols', () => {
    expect(cases.length).toBeGreaterThanOrEqual(20);
    if (update) return;
    const reasons = new Set(Object.values(recorded).flatMap((f) => Object.keys(f.exitReasons)));
    for (const reason of ['market', 'limit', 'stop', 'stopLoss', 'takeProfit', 'liquidation']) expect(reasons).toContain(reason);
  });

  it.each(cases.map((c) => [c.name, c] as const))('%s', { timeout: 120_000 }, async (name, c) => {
    const result = await pool.runBacktest(c.job);
    const fingerprint = fingerprintResult(result);
    produced[name] = fingerprint;
    if (!update) expect(fingerprint).toEqual(recorded[name]);
    // Funding is off in the corpus (no rates given): nothing is paid.
    expect(result.trades.every((t) => t.funding === 0)).toBe(true);
    expect(result.metrics.fundingPaid).toBe(0);
  });
});

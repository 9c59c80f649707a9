import { expect } from 'vitest';
import type { StratboxClient } from '@stratbox/client';
import type { OptimizationDetail, OptimizationTrial } from '@stratbox/core/contract';
import { waitFor } from './deferred.js';

/** Statuses after which an optimization never changes again. */
export const FINISHED = ['completed', 'failed', 'cancelled'];

/**
 * A 1h SMA crossover whose two periods are parameters: long while the fast average is above the
 * slow one. `busyLoop` burns that many additions per candle, to make each trial slower.
 */
export function smaCrossStrategy(busyLoop = 0): string {
  return `export const meta = {
  timeframe: '1h',
  warmup: 100,
  params: {
    fast: { type: 'int', default: 10, min: 2, max: 50 },
    slow: { type: 'int', default: 30, min: 5, max: 100 },
  },
};
export function onCandle(ctx, c) {
  ${busyLoop > 0 ? `let x = 0; for (let i = 0; i < ${busyLoop}; i++) x += i;` : ''}
  const f = ctx.indicators.sma(c.symbol, ctx.params.fast);
  const s = ctx.indicators.sma(c.symbol, ctx.params.slow);
  if (f > s && !ctx.position(c.symbol)) ctx.buy(c.symbol, { size: 0.5 });
  else if (f < s && ctx.position(c.symbol)) ctx.close(c.symbol);
}`;
}

/** Polls an optimization until it is completed, failed or cancelled, and returns it. */
export function waitOptimizationFinished(client: StratboxClient, id: string, timeoutMs = 240_000): Promise<OptimizationDetail> {
  return waitFor(
    `optimization ${id} to finish`,
    async () => {
      const o = await client.optimizations.get({ params: { id } });
      return FINISHED.includes(o.status) ? o : null;
    },
    timeoutMs,
    100,
  );
}

/**
 * Polls an optimization until it stored at least one trial (or finished first) and returns it:
 * the caller checks that it is still running.
 */
export function waitTrialsStored(client: StratboxClient, id: string, timeoutMs = 120_000): Promise<OptimizationDetail> {
  return waitFor(
    `optimization ${id} to store trials`,
    async () => {
      const o = await client.optimizations.get({ params: { id } });
      return o.trialsDone > 0 || FINISHED.includes(o.status) ? o : null;
    },
    timeoutMs,
    25,
  );
}

/** Every trial of an optimization, read page by page (`limit` a page) following `nextCursor`. */
export async function allTrials(
  client: StratboxClient,
  id: string,
  query: { sort?: 'objective' | 'index'; fold?: number; limit: number },
): Promise<{ trials: OptimizationTrial[]; pages: number }> {
  const trials: OptimizationTrial[] = [];
  let cursor: string | undefined;
  let pages = 0;
  for (;;) {
    const page = await client.optimizations.trials({ params: { id }, query: { ...query, ...(cursor ? { cursor } : {}) } });
    pages++;
    expect(page.trials.length).toBeLessThanOrEqual(query.limit);
    trials.push(...page.trials);
    if (!page.nextCursor) return { trials, pages };
    cursor = page.nextCursor;
  }
}

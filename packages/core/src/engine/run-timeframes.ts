import { TIMEFRAME_MS, type TimeframeName } from '../ports/market-data.js';

/** A timeframe of a run: index 0 is the run's own (base) timeframe, the others are `meta.timeframes`. */
export interface RunTimeframe {
  name: TimeframeName;
  ms: number;
}

/**
 * The timeframes a run gives `ctx.history` and `ctx.indicators`: its own, then the strategy's
 * declared higher ones. Answers a problem instead when a declared timeframe is not longer than
 * the run's (every supported timeframe divides the longer ones, so longer is enough).
 */
export function runTimeframes(base: TimeframeName, declared: readonly TimeframeName[] | undefined): RunTimeframe[] | { problem: string } {
  const out: RunTimeframe[] = [{ name: base, ms: TIMEFRAME_MS[base] }];
  for (const name of declared ?? []) {
    if (TIMEFRAME_MS[name] <= TIMEFRAME_MS[base]) {
      return { problem: `meta.timeframes lists ${name}, which is not longer than the run's timeframe ${base}; list only higher timeframes` };
    }
    out.push({ name, ms: TIMEFRAME_MS[name] });
  }
  return out;
}

import { createHash } from 'node:crypto';

/** What a run's seed is computed from. */
export interface SeedFields {
  strategyId: string;
  strategyVersion: number;
  symbols: readonly string[];
  startDate: string;
  endDate: string;
  timeframe: string;
  params: Record<string, string>;
}

/**
 * The seed of a run's PRNG: the same configuration always gets the same seed, so a backtest can be
 * repeated exactly, and a trial of an optimization over the whole range draws what a backtest of
 * its parameters draws.
 */
export function runSeed(r: SeedFields): number {
  const digest = createHash('sha256')
    .update(JSON.stringify([r.strategyId, r.strategyVersion, r.symbols, r.startDate, r.endDate, r.timeframe, r.params]))
    .digest();
  return digest.readUInt32LE(0);
}

import type { DriftReport } from '@stratbox/contract';
import type { DriftInput } from './drift-types.js';
import type { TradePair } from './trade-matching.js';

/*
 * Fee and funding gaps, live minus replay (docs/drift.md, "Costs"). Pure.
 */

type Costs = DriftReport['costs'];

/**
 * Fees of the fills both made (matched pairs): the live fills' fees against their replay
 * counterparts'; gap = live − replay. Like is compared with like: a missed or extra fill's fee
 * is part of what that trade cost (the waterfall's missed and extra trades), not of a fee gap.
 */
export function feeGap(pairs: readonly TradePair[]): Costs['fees'] {
  let live = 0;
  let replay = 0;
  for (const p of pairs) {
    if (p.kind !== 'matched') continue;
    live += p.live.fee;
    replay += p.replay.fee;
  }
  return { live, replay, gap: live - replay };
}

/** Funding paid (positive: paid) live, when the gateway can tell, against the replay's; gap = live − replay. */
export function fundingGap(input: DriftInput): Costs['funding'] {
  const live = input.live.funding;
  return { live, replay: input.replay.funding, gap: live === null ? null : live - input.replay.funding };
}

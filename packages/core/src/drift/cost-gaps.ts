import type { DriftReport } from '@stratbox/contract';
import type { DriftInput } from './drift-types.js';
import { isEndClose } from './trade-matching.js';

/*
 * Fee and funding gaps, live minus replay (docs/drift.md, "Costs"). Pure.
 */

type Costs = DriftReport['costs'];

/** Fees: every live fill's fee against every replay order's fee but the end-of-run close's; gap = live − replay. */
export function feeGap(input: DriftInput): Costs['fees'] {
  let live = 0;
  for (const f of input.live.fills) live += f.fee;
  let replay = 0;
  for (const o of input.replay.orders) if (!isEndClose(o)) replay += o.fee;
  return { live, replay, gap: live - replay };
}

/** Funding paid (positive: paid) live, when the gateway can tell, against the replay's; gap = live − replay. */
export function fundingGap(input: DriftInput): Costs['funding'] {
  const live = input.live.funding;
  return { live, replay: input.replay.funding, gap: live === null ? null : live - input.replay.funding };
}

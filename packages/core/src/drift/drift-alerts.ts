import type { DriftReport, DriftThresholds } from '@stratbox/contract';

/*
 * Which of a deployment's thresholds a report crosses (docs/drift.md, "Alerts"). Pure. A null
 * threshold is off; a metric the report could not compute (null) crosses nothing.
 */

type Breach = DriftReport['alerts']['breached'][number];

/**
 * `unmatchedReplayIntents`: the replay's intents the live run did not make. The parity alert
 * fires on any miss of either side (the first divergence is set); its value is the matched
 * share of both sides' intents, matched / (live intents + unmatched replay intents).
 */
export function driftAlerts(
  report: Pick<DriftReport, 'parity' | 'costs' | 'equity'>,
  thresholds: DriftThresholds,
  unmatchedReplayIntents: number,
): DriftReport['alerts'] {
  const breached: Breach[] = [];
  const { correlation, dtw } = report.equity;
  if (thresholds.minCorrelation !== null && correlation !== null && correlation < thresholds.minCorrelation) {
    breached.push({ metric: 'correlation', value: correlation, limit: thresholds.minCorrelation });
  }
  if (thresholds.maxDtw !== null && dtw !== null && dtw > thresholds.maxDtw) {
    breached.push({ metric: 'dtw', value: dtw, limit: thresholds.maxDtw });
  }
  const { p95Bps, modelBps } = report.costs.slippage;
  if (thresholds.maxSlippageRatio !== null && p95Bps !== null) {
    // A model without slippage still tolerates 1 bp times the ratio.
    const limit = thresholds.maxSlippageRatio * Math.max(modelBps, 1);
    if (p95Bps > limit) breached.push({ metric: 'slippage', value: p95Bps, limit });
  }
  const { matched, liveIntents } = report.parity;
  const all = liveIntents + unmatchedReplayIntents;
  if (thresholds.parityMiss && all > matched) breached.push({ metric: 'parity', value: matched / all, limit: 1 });
  return { thresholds, breached };
}

import type { DriftReport } from '@stratbox/contract';
import { mean, percentile } from './drift-stats.js';
import { sideSign, type TradePair } from './trade-matching.js';

/*
 * Slippage of live fills against the replay's (the model's) price (docs/drift.md, "Costs"). Pure.
 */

type DriftSlippage = DriftReport['costs']['slippage'];

/** Most bins the histogram has. */
const MAX_BINS = 20;
/** Bin widths (bps) the histogram may use, the narrowest that keeps it within MAX_BINS wins. */
const WIDTHS = [0.1, 0.25, 0.5, 1, 2, 5, 10, 25, 50, 100, 250, 500, 1_000, 2_500, 5_000, 10_000];

/**
 * (live − replay) / replay × 1e4, negated for a sell: positive when the live price was worse for
 * the account. The replay price already carries the model's slippage, so this is the slippage
 * beyond the model.
 */
export function slippageBps(side: 'buy' | 'sell', livePrice: number, replayPrice: number): number {
  return (sideSign(side) * (livePrice - replayPrice) * 1e4) / replayPrice;
}

/** Equal-width bins `[fromBps, toBps)` (the last one closed) covering every value. */
export function slippageHistogram(values: readonly number[]): DriftSlippage['histogram'] {
  if (values.length === 0) return [];
  let min = values[0]!;
  let max = values[0]!;
  for (const v of values) {
    if (v < min) min = v;
    if (v > max) max = v;
  }
  let width = WIDTHS[WIDTHS.length - 1]!;
  for (const w of WIDTHS) {
    if (Math.floor(max / w) - Math.floor(min / w) + 1 <= MAX_BINS) {
      width = w;
      break;
    }
  }
  const first = Math.floor(min / width);
  const count = Math.max(1, Math.floor(max / width) - first + 1);
  const bins = Array.from({ length: count }, (_, i) => ({ fromBps: (first + i) * width, toBps: (first + i + 1) * width, count: 0 }));
  for (const v of values) bins[Math.min(count - 1, Math.max(0, Math.floor(v / width) - first))]!.count++;
  return bins;
}

/** Mean, p50 and p95 (linear interpolation between order statistics, numpy's default) and a histogram. */
export function slippageStats(pairs: readonly TradePair[], modelSlippage: number): DriftSlippage {
  const values: number[] = [];
  for (const p of pairs) if (p.kind === 'matched') values.push(slippageBps(p.replay.order.side, p.live.price, p.replay.price));
  const sorted = [...values].sort((a, b) => a - b);
  return {
    count: values.length,
    meanBps: mean(values),
    p50Bps: values.length ? percentile(sorted, 50) : null,
    p95Bps: values.length ? percentile(sorted, 95) : null,
    modelBps: modelSlippage * 1e4,
    histogram: slippageHistogram(values),
  };
}

import type { DriftReport } from '@stratbox/contract';
import { feeGap, fundingGap } from './cost-gaps.js';
import { decisionParity } from './decision-parity.js';
import { driftAlerts } from './drift-alerts.js';
import { iso } from './drift-stats.js';
import type { DriftInput } from './drift-types.js';
import { driftWaterfall } from './drift-waterfall.js';
import { compareEquity } from './equity-comparison.js';
import { matchIntents } from './intent-matching.js';
import { slippageStats } from './slippage-stats.js';
import { tradeReport } from './trade-report.js';
import { matchTrades } from './trade-matching.js';

/**
 * The drift report of a live or paper deployment against its replay (docs/drift.md): a pure
 * function of what the deployment recorded and what the replay answered. Same input, same
 * report (`computedAt` comes from the input).
 */
export function computeDrift(input: DriftInput): DriftReport {
  const intents = matchIntents(input.live.intents, input.replay.orders, input.stepMs);
  const pairs = matchTrades(input.live.fills, input.replay.orders, intents, input.stepMs);
  const parity = decisionParity(input, intents, pairs);
  const costs = { slippage: slippageStats(pairs, input.model.slippage), fees: feeGap(pairs), funding: fundingGap(input) };
  const equity = compareEquity(input);
  return {
    deploymentId: input.deploymentId,
    strategyVersion: input.strategyVersion,
    window: { from: iso(input.window.from), to: iso(input.window.to) },
    computedAt: input.computedAt,
    candles: { recorded: input.live.candles.length, downtime: input.replay.downtimeCandles.length },
    runs: input.live.runs.map((r) => ({ startedAt: r.startedAt, startEquity: r.startEquity, resumed: r.resumed })),
    parity,
    trades: tradeReport(pairs),
    costs,
    equity,
    waterfall: driftWaterfall(input, pairs),
    alerts: driftAlerts({ parity, costs, equity }, input.thresholds, intents.replayIntents.length - intents.matchedReplayIds.size),
    replay: { cpuMs: input.replay.cpuMs },
  };
}

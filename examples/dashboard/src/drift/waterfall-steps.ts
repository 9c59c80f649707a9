import type { DriftReport } from '@stratbox/client';

type Waterfall = DriftReport['waterfall'];

/** One bar of the waterfall: a total from zero, or a part that moves the running P&L from `from` to `to`. */
export interface WaterfallStep {
  key: keyof Waterfall;
  label: string;
  value: number;
  from: number;
  to: number;
  kind: 'total' | 'gain' | 'loss' | 'none';
}

/** The parts between the two totals, in the report's order. */
const PARTS: Array<{ key: Exclude<keyof Waterfall, 'replayPnl' | 'livePnl'>; label: string }> = [
  { key: 'missedTrades', label: 'Missed trades' },
  { key: 'extraTrades', label: 'Extra trades' },
  { key: 'slippage', label: 'Slippage' },
  { key: 'fees', label: 'Fees' },
  { key: 'funding', label: 'Funding' },
  { key: 'downtime', label: 'Downtime' },
  { key: 'remainder', label: 'Remainder' },
];

/** The waterfall's bars, from the backtest's (replay's) P&L through each part to the live P&L, and the span they cover (zero included). */
export function waterfallSteps(waterfall: Waterfall): { steps: WaterfallStep[]; min: number; max: number } {
  const steps: WaterfallStep[] = [{ key: 'replayPnl', label: 'Backtest P&L', value: waterfall.replayPnl, from: 0, to: waterfall.replayPnl, kind: 'total' }];
  let running = waterfall.replayPnl;
  for (const { key, label } of PARTS) {
    const value = waterfall[key];
    steps.push({ key, label, value, from: running, to: running + value, kind: value > 0 ? 'gain' : value < 0 ? 'loss' : 'none' });
    running += value;
  }
  steps.push({ key: 'livePnl', label: 'Live P&L', value: waterfall.livePnl, from: 0, to: waterfall.livePnl, kind: 'total' });
  const ends = steps.flatMap((s) => [s.from, s.to]);
  return { steps, min: Math.min(0, ...ends), max: Math.max(0, ...ends) };
}

/** Where a bar sits in a track of the span `min..max`: its left edge and width, in percent of the track. */
export function barBox(step: Pick<WaterfallStep, 'from' | 'to'>, min: number, max: number): { left: number; width: number } {
  const span = max - min;
  if (!(span > 0)) return { left: 0, width: 0 };
  const low = Math.min(step.from, step.to);
  return { left: ((low - min) / span) * 100, width: (Math.abs(step.to - step.from) / span) * 100 };
}

import { describe, expect, it } from 'vitest';
import { barBox, waterfallSteps } from './waterfall-steps.js';

describe('the drift waterfall', () => {
  const waterfall = { replayPnl: 100, missedTrades: -20, extraTrades: 5, slippage: -10, fees: -3, funding: 0, downtime: -2, remainder: 0.5, livePnl: 70.5 };

  it('runs from the backtest P&L through each part to the live P&L', () => {
    const { steps, min, max } = waterfallSteps(waterfall);
    expect(steps.map((s) => s.label)).toEqual([
      'Backtest P&L',
      'Missed trades',
      'Extra trades',
      'Slippage',
      'Fees',
      'Funding',
      'Downtime',
      'Remainder',
      'Live P&L',
    ]);
    expect(steps[1]).toMatchObject({ from: 100, to: 80, kind: 'loss' });
    expect(steps[2]).toMatchObject({ from: 80, to: 85, kind: 'gain' });
    expect(steps[5]).toMatchObject({ kind: 'none' });
    expect(steps[7]!.to).toBeCloseTo(70.5, 9);
    expect(steps[8]).toMatchObject({ from: 0, to: 70.5, kind: 'total' });
    expect([min, max]).toEqual([0, 100]);
  });

  it('places bars across zero when the P&L is negative', () => {
    const { steps, min, max } = waterfallSteps({ ...waterfall, replayPnl: -50, livePnl: -79.5 });
    expect([min, max]).toEqual([-80, 0]);
    expect(barBox(steps[0]!, min, max)).toEqual({ left: 37.5, width: 62.5 });
    expect(barBox({ from: 1, to: 1 }, 0, 0)).toEqual({ left: 0, width: 0 });
  });
});

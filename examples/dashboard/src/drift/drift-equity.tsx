import type { DriftReport } from '@stratbox/client';
import { useMemo } from 'react';
import { EquityChart } from '../backtests/equity-chart.js';
import { formatMoney, formatNumber, formatPercent } from '../ui/format.js';
import { DriftCards, signTone } from './drift-cards.js';

/** Backtest (replay) and live equity overlaid, and how closely they move: returns correlation, DTW, tracking error, final and drawdown differences. */
export function DriftEquity({ equity }: { equity: DriftReport['equity'] }) {
  const replay = useMemo(() => equity.points.map((p) => ({ time: p.time, equity: p.replay })), [equity.points]);
  const overlay = useMemo(() => ({ label: 'Live', points: equity.points.map((p) => ({ time: p.time, equity: p.live })) }), [equity.points]);
  return (
    <section aria-labelledby="drift-equity-title" className="drift-section">
      <h3 id="drift-equity-title">Equity</h3>
      <EquityChart
        points={replay}
        title="Backtest"
        overlay={overlay}
        caption="The backtest replayed over the deployment's candles (solid blue) and the live equity (dashed orange, broken where the deployment was down); the backtest's drawdown below."
      />
      <DriftCards
        label="Equity"
        cards={[
          { label: 'Returns correlation', value: formatNumber(equity.correlation), hint: 'Daily returns; 0.8 and above is good' },
          { label: 'DTW distance', value: formatNumber(equity.dtw), hint: 'Annualized; under 0.2 is decent' },
          { label: 'Tracking error', value: formatPercent(equity.trackingError), hint: 'Annualized' },
          { label: 'Final difference', value: formatMoney(equity.finalDifference), tone: signTone(equity.finalDifference), hint: 'Live minus backtest equity' },
          {
            label: 'Max drawdown difference',
            value: formatPercent(equity.maxDrawdown.difference),
            hint: `Live ${formatPercent(equity.maxDrawdown.live)}, backtest ${formatPercent(equity.maxDrawdown.replay)}`,
          },
        ]}
      />
    </section>
  );
}

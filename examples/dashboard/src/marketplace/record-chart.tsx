import { useMemo } from 'react';
import { EquityChart } from '../backtests/equity-chart.js';
import type { VerificationRecord } from './record-values.js';

/**
 * A record's equity in two segments: the platform backtest, then the forward record from the
 * listing on, marked where it starts. The forward record is its own paper account starting from
 * the same capital; it is drawn scaled to continue from the backtest's last equity, so the line
 * reads as one account and the drawdown pane stays true to both.
 */
export function RecordChart({ record }: { record: VerificationRecord }) {
  const points = useMemo(() => {
    const backtest = record.backtest?.equity ?? [];
    const forward = record.forward.equity;
    const last = backtest.at(-1)?.equity;
    const first = forward[0]?.equity;
    const scale = last !== undefined && first !== undefined && first > 0 ? last / first : 1;
    return [...backtest, ...forward.map((p) => ({ time: p.time, equity: p.equity * scale }))];
  }, [record]);
  if (points.length === 0) return <p className="muted">No equity yet: the platform backtest has not finished.</p>;
  const forwardPoints = record.forward.equity.length;
  return (
    <EquityChart
      points={points}
      segment={forwardPoints > 0 ? { from: record.forward.start, label: 'Forward', marker: 'Forward record starts' } : undefined}
      caption={
        forwardPoints > 0
          ? 'The platform backtest (blue), then the forward record (violet) from the listing on, drawn continuing from the backtest’s last equity; drawdown below.'
          : 'The platform backtest; the forward record has no closed candle yet. Drawdown below.'
      }
    />
  );
}

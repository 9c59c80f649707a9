import { createChart, LineSeries, type UTCTimestamp } from 'lightweight-charts';
import { useEffect, useMemo, useRef } from 'react';
import { CHART_OPTIONS } from '../backtests/chart-theme.js';
import { RUN_COLORS } from './compare-colors.js';
import { REBASE_START, rebasedEquity } from './compare-data.js';

interface Run {
  label: string;
  points: Array<{ time: string; equity: number }>;
}

const asTime = (points: Array<{ time: number; value: number }>) => points.map((p) => ({ time: p.time as UTCTimestamp, value: p.value }));
const last = (points: Array<{ value: number }>) => points.at(-1)?.value ?? REBASE_START;

/** Both runs' equity on one chart, each rebased to start at 100. */
export function CompareChart({ a, b }: { a: Run; b: Run }) {
  const host = useRef<HTMLDivElement>(null);
  const seriesA = useMemo(() => rebasedEquity(a.points), [a.points]);
  const seriesB = useMemo(() => rebasedEquity(b.points), [b.points]);

  useEffect(() => {
    if (!host.current) return;
    const chart = createChart(host.current, CHART_OPTIONS);
    chart.addSeries(LineSeries, { color: RUN_COLORS.a, lineWidth: 2, title: 'A' }).setData(asTime(seriesA));
    chart.addSeries(LineSeries, { color: RUN_COLORS.b, lineWidth: 2, title: 'B' }).setData(asTime(seriesB));
    chart.timeScale().fitContent();
    return () => chart.remove();
  }, [seriesA, seriesB]);

  if (seriesA.length === 0 && seriesB.length === 0) return <p className="muted">Neither run has an equity curve to draw.</p>;
  const summary = `A (${a.label}) from 100 to ${last(seriesA).toFixed(1)}; B (${b.label}) from 100 to ${last(seriesB).toFixed(1)}`;
  return (
    <figure className="chart-figure" data-testid="compare-chart">
      {/* a text alternative beside the canvases (they hold the library's attribution link, so no role="img" around them) */}
      <p className="visually-hidden">Equity rebased to 100: {summary}</p>
      <div className="chart equity-chart" ref={host} />
      <figcaption className="muted small">
        <ul className="compare-legend">
          <li>
            <span className="legend-swatch" style={{ background: RUN_COLORS.a }} aria-hidden="true" />
            A: {a.label}, ends at {last(seriesA).toFixed(1)}
          </li>
          <li>
            <span className="legend-swatch" style={{ background: RUN_COLORS.b }} aria-hidden="true" />
            B: {b.label}, ends at {last(seriesB).toFixed(1)}
          </li>
        </ul>
        Equity of each run rebased to start at 100.
      </figcaption>
    </figure>
  );
}

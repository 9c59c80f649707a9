import { AreaSeries, createChart, createSeriesMarkers, type IChartApi, LineSeries, LineStyle, type UTCTimestamp } from 'lightweight-charts';
import { useEffect, useMemo, useRef } from 'react';
import { drawdownSeries, equitySeries, gappedSeries, toSeconds } from './chart-data.js';
import { CHART_OPTIONS, SERIES_COLORS } from './chart-theme.js';
import { exposeVisibleRange, isoOfSeconds } from './visible-range.js';

const asTime = (points: Array<{ time: number; value: number }>) => points.map((p) => ({ time: p.time as UTCTimestamp, value: p.value }));

/**
 * The equity curve, and beneath it the drawdown from its running peak (percent), on one time axis.
 * With `segment`, the points from `segment.from` on are a second segment (a listing's forward
 * record after its platform backtest): drawn in their own colour, a marker where they start.
 * With `overlay`, a second curve on the same axes (a deployment's live equity over its replay):
 * dashed, in its own colour, over a wider main line, so both show where they coincide; it breaks
 * where it has no value.
 * The whole curve is in view when the chart opens; the figure carries its first and last point's
 * times (`data-first`, `data-last`) and the range in view (`data-visible-from`, `data-visible-to`).
 */
export function EquityChart({
  points,
  segment,
  caption,
  title = 'Equity',
  overlay,
}: {
  points: Array<{ time: string; equity: number }>;
  segment?: { from: string; label: string; marker: string } | undefined;
  /** Replaces the default caption. */
  caption?: string | undefined;
  /** The main line's name on the chart. */
  title?: string | undefined;
  overlay?: { points: Array<{ time: string; equity: number | null }>; label: string } | undefined;
}) {
  const host = useRef<HTMLDivElement>(null);
  const figure = useRef<HTMLElement>(null);
  const equity = useMemo(() => equitySeries(points), [points]);
  const drawdown = useMemo(() => drawdownSeries(equity), [equity]);
  const worst = drawdown.reduce((min, p) => Math.min(min, p.value), 0);
  const segmentFrom = segment ? toSeconds(segment.from) : null;
  const segmentLabel = segment?.label;
  const segmentMarker = segment?.marker;
  const overlayLine = useMemo(() => (overlay ? gappedSeries(overlay.points) : null), [overlay]);
  const overlayLabel = overlay?.label;

  useEffect(() => {
    if (!host.current || equity.length === 0) return;
    const element = host.current;
    const caption = figure.current;
    let chart: IChartApi | null = null;
    let unexpose = () => {};
    // drawn just before the next frame, so the effects that start the page's other requests (the
    // trades, the candles: they run after this one) send them first and the server works meanwhile
    const frame = requestAnimationFrame(() => {
      chart = createChart(element, CHART_OPTIONS);
      if (caption) unexpose = exposeVisibleRange(chart, caption);
      const line = chart.addSeries(LineSeries, { color: SERIES_COLORS.equity, lineWidth: overlayLine ? 4 : 2, title }, 0);
      const second = segmentFrom === null ? [] : equity.filter((p) => p.time >= segmentFrom);
      line.setData(asTime(segmentFrom === null ? equity : equity.filter((p) => p.time < segmentFrom)));
      if (second.length > 0) {
        const forward = chart.addSeries(LineSeries, { color: SERIES_COLORS.segment, lineWidth: 2, title: segmentLabel ?? '' }, 0);
        forward.setData(asTime(second));
        createSeriesMarkers(forward, [
          { time: second[0]!.time as UTCTimestamp, position: 'aboveBar', shape: 'arrowDown', color: SERIES_COLORS.segment, text: segmentMarker ?? '' },
        ]);
      }
      if (overlayLine) {
        chart
          .addSeries(LineSeries, { color: SERIES_COLORS.overlay, lineWidth: 2, lineStyle: LineStyle.Dashed, title: overlayLabel ?? '' }, 0)
          .setData(overlayLine.map((p) => ({ ...p, time: p.time as UTCTimestamp })));
      }
      const dd = chart.addSeries(
        AreaSeries,
        {
          lineColor: SERIES_COLORS.drawdown,
          topColor: 'rgba(220, 38, 38, 0.05)',
          bottomColor: 'rgba(220, 38, 38, 0.45)',
          lineWidth: 1,
          invertFilledArea: true,
          title: 'Drawdown %',
          priceFormat: { type: 'custom', formatter: (v: number) => `${v.toFixed(1)}%`, minMove: 0.01 },
        },
        1,
      );
      dd.setData(asTime(drawdown));
      chart.panes()[0]?.setStretchFactor(0.7);
      chart.panes()[1]?.setStretchFactor(0.3);
      chart.timeScale().fitContent();
    });
    return () => {
      cancelAnimationFrame(frame);
      unexpose();
      chart?.remove();
    };
  }, [equity, drawdown, segmentFrom, segmentLabel, segmentMarker, title, overlayLine, overlayLabel]);

  if (equity.length === 0) return <p className="muted">No equity curve: the run made no bars.</p>;
  const last = equity.at(-1)!.value;
  const overlayValues = overlayLine?.flatMap((p) => (p.value === undefined ? [] : [p.value])) ?? [];
  return (
    <figure
      className="chart-figure"
      data-testid="equity-chart"
      ref={figure}
      data-first={isoOfSeconds(equity[0]!.time)}
      data-last={isoOfSeconds(equity.at(-1)!.time)}
    >
      {/* the chart's canvases hold a link (the library's attribution): a text alternative beside them, not role="img" around them */}
      <p className="visually-hidden">
        {title} from {equity[0]!.value.toFixed(2)} to {last.toFixed(2)}, deepest drawdown {worst.toFixed(1)}%
        {overlay && overlayValues.length > 0 ? `; ${overlay.label} from ${overlayValues[0]!.toFixed(2)} to ${overlayValues.at(-1)!.toFixed(2)}` : ''}
      </p>
      <div className="chart equity-chart" ref={host} />
      <figcaption className="muted small">
        {caption ?? `Equity (${equity.length.toLocaleString('en')} points) above; drawdown below its running peak, deepest ${worst.toFixed(1)}%.`}
      </figcaption>
    </figure>
  );
}

import type { BacktestSummary } from '@stratbox/client';
import type { Trade } from './trade.js';
import { CandlestickSeries, createChart, type UTCTimestamp } from 'lightweight-charts';
import { useEffect, useMemo, useRef, useState } from 'react';
import { ErrorBanner } from '../ui/error-banner.js';
import { Loading } from '../ui/loading.js';
import { toSeconds } from './chart-data.js';
import { CHART_OPTIONS, SERIES_COLORS } from './chart-theme.js';
import { exposeVisibleRange, isoOfSeconds } from './visible-range.js';
import { createTradeMarkerPrimitive } from './trade-marker-primitive.js';
import { tradeMarkers } from './trade-markers.js';
import { useCandles } from './use-candles.js';

const TIMEFRAME_SECONDS: Record<string, number> = { '1m': 60, '5m': 300, '15m': 900, '30m': 1800, '1h': 3600, '4h': 14_400, '1d': 86_400 };

/**
 * The candles one symbol of a backtest ran on, with each of its trades' entry and exit marked.
 * `trades` is null while the run's trades are still loading: the candles load meanwhile, and the
 * chart is drawn once both are in. The figure carries the number of markers the chart holds (`data-markers`) and of trades
 * marked (`data-trades`), as its caption says. Every candle is in view when the chart opens; the
 * figure carries the first and last candle's times (`data-first`, `data-last`) and the range in
 * view (`data-visible-from`, `data-visible-to`).
 */
export function CandleChart({ backtest, symbol, trades }: { backtest: BacktestSummary; symbol: string; trades: Trade[] | null }) {
  const host = useRef<HTMLDivElement>(null);
  const figure = useRef<HTMLElement>(null);
  const { candles, source, loading: candlesLoading, error, truncated } = useCandles(backtest, symbol);
  // the chart waits for both its candles and the trades it marks
  const waiting = candlesLoading || trades === null;
  const [shownMarkers, setShownMarkers] = useState(0);
  const data = useMemo(
    () => candles.map((c) => ({ time: toSeconds(c.time) as UTCTimestamp, open: c.open, high: c.high, low: c.low, close: c.close })),
    [candles],
  );
  const marks = useMemo(
    () =>
      tradeMarkers(
        trades ?? [],
        data.map((d) => d.time),
        TIMEFRAME_SECONDS[backtest.timeframe] ?? 3600,
      ),
    [trades, data, backtest.timeframe],
  );

  useEffect(() => {
    if (!host.current || waiting || data.length === 0) return;
    const chart = createChart(host.current, CHART_OPTIONS);
    const unexpose = figure.current ? exposeVisibleRange(chart, figure.current) : () => {};
    const series = chart.addSeries(CandlestickSeries, {
      upColor: SERIES_COLORS.up,
      downColor: SERIES_COLORS.down,
      borderVisible: false,
      wickUpColor: SERIES_COLORS.up,
      wickDownColor: SERIES_COLORS.down,
    });
    series.setData(data);
    const markers = createTradeMarkerPrimitive(marks.markers, data);
    series.attachPrimitive(markers);
    setShownMarkers(markers.count());
    chart.timeScale().fitContent();
    return () => {
      unexpose();
      chart.remove();
      setShownMarkers(0);
    };
  }, [data, marks, waiting]);

  return (
    <figure
      className="chart-figure"
      data-testid="candle-chart"
      data-symbol={symbol}
      data-markers={shownMarkers}
      data-trades={marks.marked}
      ref={figure}
      data-first={data.length > 0 ? isoOfSeconds(data[0]!.time) : undefined}
      data-last={data.length > 0 ? isoOfSeconds(data.at(-1)!.time) : undefined}
    >
      <ErrorBanner error={error} title={`Could not load the candles of ${symbol}`} />
      {candlesLoading ? <Loading label={`Loading candles of ${symbol}… ${candles.length.toLocaleString('en')} so far`} /> : null}
      {!waiting && !error && data.length === 0 ? <p className="muted">No candles for {symbol} over this range.</p> : null}
      {/* a text alternative beside the canvases (they hold the library's attribution link, so no role="img" around them) */}
      <p className="visually-hidden">
        {symbol} candles, {marks.marked} trades marked
      </p>
      <div className="chart candle-chart" ref={host} hidden={waiting || data.length === 0} />
      {!waiting && data.length > 0 ? (
        <figcaption className="muted small">
          {symbol}: {data.length.toLocaleString('en')} {backtest.timeframe} candles ({source}); {marks.marked} trade(s) marked with {shownMarkers} markers
          (entry ▲▼, exit ●)
          {marks.outside > 0 ? `; ${marks.outside} trade(s) fall outside the candles shown` : ''}
          {truncated ? `; only the first ${data.length.toLocaleString('en')} candles are shown` : ''}.
        </figcaption>
      ) : null}
    </figure>
  );
}

import { ColorType, type DeepPartial, type TimeChartOptions } from 'lightweight-charts';

/** Colours of the series (saturated, so they stand apart from the grey grid and text). */
export const SERIES_COLORS = { equity: '#2563eb', drawdown: '#dc2626', up: '#16a34a', down: '#dc2626', segment: '#7c3aed', overlay: '#c2410c' };

/**
 * The options every chart of the dashboard shares: light theme, UTC times, sized by its box.
 * Both edges of the time scale are fixed to the data: the chart then never zooms out past its
 * first and last bar, and its least bar spacing becomes the box's width over the number of bars
 * (the library's fixed 0.5 px otherwise), so `fitContent` shows a whole run however many bars it
 * has (a year of `1h` candles: 8,760 in about 1,100 px), and wheel or pinch zooms in from there.
 * A resize keeps the range in view (the library would keep the left edge and cut off the right,
 * as when the price labels widen once the data is in).
 */
export const CHART_OPTIONS: DeepPartial<TimeChartOptions> = {
  autoSize: true,
  layout: { background: { type: ColorType.Solid, color: '#ffffff' }, textColor: '#374151', fontSize: 12, attributionLogo: true },
  grid: { vertLines: { color: '#f1f5f9' }, horzLines: { color: '#f1f5f9' } },
  rightPriceScale: { borderColor: '#e5e7eb' },
  timeScale: { borderColor: '#e5e7eb', timeVisible: true, secondsVisible: false, fixLeftEdge: true, fixRightEdge: true, lockVisibleTimeRangeOnResize: true },
  crosshair: { mode: 0 },
};

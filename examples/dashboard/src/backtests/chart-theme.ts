import { ColorType, type DeepPartial, type TimeChartOptions } from 'lightweight-charts';

/** Colours of the series (saturated, so they stand apart from the grey grid and text). */
export const SERIES_COLORS = { equity: '#2563eb', drawdown: '#dc2626', up: '#16a34a', down: '#dc2626', segment: '#7c3aed', overlay: '#c2410c' };

/** The options every chart of the dashboard shares: light theme, UTC times, sized by its box. */
export const CHART_OPTIONS: DeepPartial<TimeChartOptions> = {
  autoSize: true,
  layout: { background: { type: ColorType.Solid, color: '#ffffff' }, textColor: '#374151', fontSize: 12, attributionLogo: true },
  grid: { vertLines: { color: '#f1f5f9' }, horzLines: { color: '#f1f5f9' } },
  rightPriceScale: { borderColor: '#e5e7eb' },
  timeScale: { borderColor: '#e5e7eb', timeVisible: true, secondsVisible: false },
  crosshair: { mode: 0 },
};

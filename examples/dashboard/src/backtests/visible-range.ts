import type { IChartApi, Time } from 'lightweight-charts';

const iso = (time: Time) => isoOfSeconds(Number(time));

/**
 * Keeps the time range `chart` shows written on `element`, as `data-visible-from` and
 * `data-visible-to` (ISO 8601 UTC: the first and the last bar in view), so a reader of the page
 * (a browser test, a screen reader's caption) can tell what the chart shows without its pixels.
 * Returns what stops it.
 */
export function exposeVisibleRange(chart: IChartApi, element: HTMLElement): () => void {
  const write = () => {
    const range = chart.timeScale().getVisibleRange();
    if (range) {
      element.dataset.visibleFrom = iso(range.from);
      element.dataset.visibleTo = iso(range.to);
    } else {
      delete element.dataset.visibleFrom;
      delete element.dataset.visibleTo;
    }
  };
  chart.timeScale().subscribeVisibleTimeRangeChange(write);
  return () => chart.timeScale().unsubscribeVisibleTimeRangeChange(write);
}

/** A chart time (whole seconds since the epoch) as an ISO 8601 UTC string. */
export function isoOfSeconds(seconds: number): string {
  return new Date(seconds * 1000).toISOString();
}

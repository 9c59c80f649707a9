import type { CandleSeries } from '../ports/market-data.js';

/**
 * The bars a run trades and reports progress over: every symbol's candles at or after
 * `startTime`, all symbols together. Warm-up candles before the start are left out, as the
 * engine leaves them out of its own count (they are indicator history, never an `onCandle`), so
 * the total is the same from a run's first progress event to its last.
 */
export function tradedBars(series: readonly CandleSeries[], startTime: number): number {
  let total = 0;
  for (const s of series) {
    let history = 0;
    while (history < s.length && s.time[history]! < startTime) history++;
    total += s.length - history;
  }
  return total;
}

/**
 * The engine's progress (`processed` of its own `engineTotal`) on the run's fixed `totalBars`:
 * never more than `totalBars`, and `totalBars` only when the engine has processed its last bar.
 */
export function processedOf(processed: number, engineTotal: number, totalBars: number): number {
  if (engineTotal <= 0 || totalBars <= 0) return 0;
  if (engineTotal === totalBars) return Math.min(processed, totalBars);
  return Math.min(totalBars, Math.floor((processed / engineTotal) * totalBars));
}

import { WilderAverage } from './wilder-average.js';

/**
 * Wilder's average true range. The true range is max(high - low, |high - previous close|,
 * |low - previous close|), and high - low on the first candle (no previous close); the average
 * is Wilder's smoothing of it (see `WilderAverage`), so the first value comes on the
 * `period`-th candle. O(1) per push.
 */
export class AverageTrueRange {
  private prevClose = Number.NaN;
  private readonly avg: WilderAverage;

  constructor(period: number) {
    this.avg = new WilderAverage(period);
  }

  /** Feeds one candle and returns the ATR as of it (NaN until ready). */
  push(high: number, low: number, close: number): number {
    const pc = this.prevClose;
    const tr = Number.isNaN(pc) ? high - low : Math.max(high - low, Math.abs(high - pc), Math.abs(low - pc));
    this.prevClose = close;
    return this.avg.push(tr);
  }
}

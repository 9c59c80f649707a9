import { HISTORY_SEED_HEADER } from '../history-seed.js';
import { createTimeframeBuckets, type TimeframeBuckets } from '../model/timeframe-buckets.js';
import { fmt } from './format.js';
import { F64 } from './intrinsics.js';

/** Most candles one `ctx.history` call returns (per symbol and timeframe). */
export const MAX_HISTORY = 5000;

/** Asks the host for the candles closed so far of a symbol at a timeframe index (layout: engine/history-seed.ts). */
export type HostHistory = (symbol: number, timeframe: number) => ArrayBuffer;

/** The candles a symbol has closed at one timeframe: six columns holding up to twice `MAX_HISTORY` rows, compacted when full. */
interface Series {
  cols: Float64Array[];
  len: number;
  buckets: TimeframeBuckets | null;
}

/** What `ctx.history` answers: `length` candles, oldest first, as columns. */
export interface HistoryWindow {
  readonly length: number;
  readonly time: Float64Array;
  readonly open: Float64Array;
  readonly high: Float64Array;
  readonly low: Float64Array;
  readonly close: Float64Array;
  readonly volume: Float64Array;
}

/**
 * The last closed candles of a symbol, as columns. Each column is copied out of the run's
 * buffers on first read, so writing into it changes nothing the strategy reads later, and holds
 * nothing newer than the current candle.
 */
class CandleWindow implements HistoryWindow {
  readonly length: number;
  private readonly _cols: Float64Array[];
  private readonly _from: number;
  private _t: Float64Array | undefined = undefined;
  private _o: Float64Array | undefined = undefined;
  private _h: Float64Array | undefined = undefined;
  private _l: Float64Array | undefined = undefined;
  private _c: Float64Array | undefined = undefined;
  private _v: Float64Array | undefined = undefined;
  constructor(cols: Float64Array[], from: number, length: number) {
    this._cols = cols;
    this._from = from;
    this.length = length;
  }
  private _copy(k: number): Float64Array {
    return this._cols[k]!.slice(this._from, this._from + this.length);
  }
  get time(): Float64Array {
    return this._t ?? (this._t = this._copy(0));
  }
  get open(): Float64Array {
    return this._o ?? (this._o = this._copy(1));
  }
  get high(): Float64Array {
    return this._h ?? (this._h = this._copy(2));
  }
  get low(): Float64Array {
    return this._l ?? (this._l = this._copy(3));
  }
  get close(): Float64Array {
    return this._c ?? (this._c = this._copy(4));
  }
  get volume(): Float64Array {
    return this._v ?? (this._v = this._copy(5));
  }
}

/**
 * `ctx.history` for backtests and live runs. Nothing is kept for a symbol and timeframe until the
 * strategy first reads them: then the host sends what has closed so far (one crossing), and from
 * there the run appends each closed base candle (`append`, called by the loop before `onCandle`
 * and only for symbols in `on`), building higher-timeframe candles by the bucket rule.
 *
 * `timeframes[0]` is the run's own timeframe; the others are the strategy's `meta.timeframes`.
 */
export function createCandleHistory(
  symbols: readonly string[],
  timeframes: readonly { name: string; ms: number }[],
  resolve: (symbol: unknown) => number,
  hostHistory: HostHistory,
) {
  const nSym = symbols.length;
  const baseMs = timeframes[0]!.ms;
  /** 1 for a symbol with at least one series: the loop calls `append` for its candles. */
  const on = new Uint8Array(nSym);
  const bySymbol: Series[][] = [];
  const byKey: Array<Series | undefined> = [];
  for (let s = 0; s < nSym; s++) bySymbol.push([]);

  function timeframeIndex(options: unknown): number {
    if (options === undefined || options === null) return 0;
    if (typeof options !== 'object') throw new TypeError(`history options must be an object like { timeframe: '4h' }, got ${fmt(options)}`);
    const tf = (options as { timeframe?: unknown }).timeframe;
    if (tf === undefined || tf === timeframes[0]!.name) return 0;
    for (let k = 1; k < timeframes.length; k++) if (timeframes[k]!.name === tf) return k;
    const declared =
      timeframes.length > 1
        ? timeframes
            .slice(1)
            .map((t) => t.name)
            .join(', ')
        : 'none';
    throw new TypeError(`Timeframe ${fmt(tf)} is not declared in meta.timeframes (declared: ${declared})`);
  }

  function pushRow(series: Series, t: number, o: number, h: number, l: number, c: number, v: number): void {
    const cols = series.cols;
    if (series.len === 2 * MAX_HISTORY) {
      for (let k = 0; k < 6; k++) cols[k]!.copyWithin(0, MAX_HISTORY);
      series.len = MAX_HISTORY;
    }
    const i = series.len++;
    cols[0]![i] = t;
    cols[1]![i] = o;
    cols[2]![i] = h;
    cols[3]![i] = l;
    cols[4]![i] = c;
    cols[5]![i] = v;
  }

  function register(s: number, tf: number): Series {
    const cols: Float64Array[] = [];
    for (let k = 0; k < 6; k++) cols.push(new F64(2 * MAX_HISTORY));
    const series: Series = { cols, len: 0, buckets: null };
    const seed = new F64(hostHistory(s, tf));
    const rows = seed[0]!;
    for (let k = 0; k < 6; k++) cols[k]!.set(seed.subarray(HISTORY_SEED_HEADER + k * rows, HISTORY_SEED_HEADER + (k + 1) * rows));
    series.len = rows;
    if (tf !== 0) {
      const buckets = createTimeframeBuckets(timeframes[tf]!.ms, baseMs, (t, o, h, l, c, v) => pushRow(series, t, o, h, l, c, v));
      buckets.restore({ start: seed[1]!, open: seed[2]!, high: seed[3]!, low: seed[4]!, close: seed[5]!, volume: seed[6]! });
      series.buckets = buckets;
    }
    bySymbol[s]!.push(series);
    byKey[tf * nSym + s] = series;
    on[s] = 1;
    return series;
  }

  return {
    on,
    /** One closed base candle of symbol `s` (only called when `on[s]`). */
    append(s: number, t: number, o: number, h: number, l: number, c: number, v: number): void {
      const list = bySymbol[s]!;
      for (let k = 0; k < list.length; k++) {
        const series = list[k]!;
        if (series.buckets === null) pushRow(series, t, o, h, l, c, v);
        else series.buckets.push(t, o, h, l, c, v);
      }
    },
    /** `ctx.history(symbol, length, options?)`: up to `length` closed candles, oldest first. */
    read(symbol: unknown, length: unknown, options?: unknown): HistoryWindow {
      const s = resolve(symbol);
      if (typeof length !== 'number' || !(length >= 1 && length <= MAX_HISTORY) || length !== Math.floor(length)) {
        throw new TypeError(`history length must be an integer from 1 to ${MAX_HISTORY}, got ${fmt(length)}`);
      }
      const tf = options === undefined ? 0 : timeframeIndex(options);
      const series = byKey[tf * nSym + s] ?? register(s, tf);
      const n = length < series.len ? length : series.len;
      return new CandleWindow(series.cols, series.len - n, n);
    },
    /** Index of `options.timeframe` among the run's timeframes (0: the run's own); throws the strategy-facing error. */
    timeframeIndex,
  };
}

export type CandleHistory = ReturnType<typeof createCandleHistory>;

import { HISTORY_SEED_HEADER } from '../history-seed.js';
import { createTimeframeBuckets, type TimeframeBuckets } from '../model/timeframe-buckets.js';
import { fmt } from './format.js';
import { F64 } from './intrinsics.js';

/** Most candles one `ctx.history` call returns (per symbol and timeframe). */
export const MAX_HISTORY = 5000;

/** Asks the host for the candles closed so far of a symbol at a timeframe index (layout: engine/history-seed.ts). */
export type HostHistory = (symbol: number, timeframe: number) => ArrayBuffer;

/**
 * The candles a symbol has closed at one timeframe: six columns holding up to twice `MAX_HISTORY`
 * rows, replaced by new ones holding the last `MAX_HISTORY` when full; and the views last made
 * for a window, so repeated reads of one window (`h.close[i]` in a loop) make one.
 */
interface Series {
  rows: Rows;
  len: number;
  buckets: TimeframeBuckets | null;
}

/** One set of buffers of a series, and the views last made of them. */
interface Rows {
  cols: Float64Array[];
  views: Array<Float64Array | null>;
  /** Per column, the window (`from * (MAX_HISTORY + 1) + length`) its view is of; -1 for none. */
  viewOf: Float64Array;
}

function newRows(): Rows {
  const cols: Float64Array[] = [];
  for (let k = 0; k < 6; k++) cols.push(new F64(2 * MAX_HISTORY));
  return { cols, views: [null, null, null, null, null, null], viewOf: new F64(6).fill(-1) };
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
 * A column of a window: a view of the series' buffer (made once per window; a copy costs an
 * allocation and a species lookup in QuickJS, three times a view). Rows once written never
 * change and a full buffer is replaced, not compacted in place, so a view keeps its values for
 * good and never reaches past the candle it was read at.
 */
function columnView(rows: Rows, k: number, from: number, length: number): Float64Array {
  const key = from * (MAX_HISTORY + 1) + length;
  if (rows.viewOf[k] === key) return rows.views[k]!;
  const view = new F64(rows.cols[k]!.buffer, from * 8, length);
  rows.views[k] = view;
  rows.viewOf[k] = key;
  return view;
}

/** The fields of a window: the buffers it reads, its first row and its row count. */
interface WindowFields {
  _s: Rows;
  _f: number;
  length: number;
}

/**
 * The prototype of every window `ctx.history` answers: each is an object literal of the three
 * `WindowFields` over it (objects are costly to build in QuickJS, one property at a time, and
 * class instances more so), and its columns are views made on first read (`columnView`).
 */
const WINDOW: ThisType<WindowFields> & Omit<HistoryWindow, 'length'> = {
  get time(): Float64Array {
    return columnView(this._s, 0, this._f, this.length);
  },
  get open(): Float64Array {
    return columnView(this._s, 1, this._f, this.length);
  },
  get high(): Float64Array {
    return columnView(this._s, 2, this._f, this.length);
  },
  get low(): Float64Array {
    return columnView(this._s, 3, this._f, this.length);
  },
  get close(): Float64Array {
    return columnView(this._s, 4, this._f, this.length);
  },
  get volume(): Float64Array {
    return columnView(this._s, 5, this._f, this.length);
  },
};

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

  /* The last timeframe named, and its index: a strategy names the same one on every candle. */
  let lastName: unknown = null;
  let lastIndex = 0;
  function timeframeIndex(options: unknown): number {
    if (options === undefined || options === null) return 0;
    if (typeof options !== 'object') throw new TypeError(`history options must be an object like { timeframe: '4h' }, got ${fmt(options)}`);
    const tf = (options as { timeframe?: unknown }).timeframe;
    if (tf === lastName) return lastIndex;
    const k = findTimeframe(tf);
    lastName = tf;
    lastIndex = k;
    return k;
  }
  function findTimeframe(tf: unknown): number {
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
    if (series.len === 2 * MAX_HISTORY) {
      // New buffers holding the last MAX_HISTORY rows: windows and views handed out keep the old ones.
      const fresh = newRows();
      for (let k = 0; k < 6; k++) fresh.cols[k]!.set(series.rows.cols[k]!.subarray(MAX_HISTORY));
      series.rows = fresh;
      series.len = MAX_HISTORY;
    }
    const cols = series.rows.cols;
    const i = series.len++;
    cols[0]![i] = t;
    cols[1]![i] = o;
    cols[2]![i] = h;
    cols[3]![i] = l;
    cols[4]![i] = c;
    cols[5]![i] = v;
  }

  function register(s: number, tf: number): Series {
    const series: Series = { rows: newRows(), len: 0, buckets: null };
    const cols = series.rows.cols;
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
        if (series.buckets !== null) series.buckets.push(t, o, h, l, c, v);
        else if (series.len < 2 * MAX_HISTORY) {
          // pushRow, written out: this runs on every candle.
          const cols = series.rows.cols;
          const i = series.len++;
          cols[0]![i] = t;
          cols[1]![i] = o;
          cols[2]![i] = h;
          cols[3]![i] = l;
          cols[4]![i] = c;
          cols[5]![i] = v;
        } else pushRow(series, t, o, h, l, c, v);
      }
    },
    /** `ctx.history(symbol, length, options?)`: up to `length` closed candles, oldest first. */
    read(symbol: unknown, length: unknown, options?: unknown): HistoryWindow {
      const s = resolve(symbol);
      if (typeof length !== 'number' || !(length >= 1 && length <= MAX_HISTORY) || length !== (length | 0)) {
        throw new TypeError(`history length must be an integer from 1 to ${MAX_HISTORY}, got ${fmt(length)}`);
      }
      const tf = options === undefined ? 0 : timeframeIndex(options);
      const series = byKey[tf * nSym + s] ?? register(s, tf);
      const n = length < series.len ? length : series.len;
      return { __proto__: WINDOW, _s: series.rows, _f: series.len - n, length: n } as unknown as HistoryWindow;
    },
    /** Index of `options.timeframe` among the run's timeframes (0: the run's own); throws the strategy-facing error. */
    timeframeIndex,
  };
}

export type CandleHistory = ReturnType<typeof createCandleHistory>;

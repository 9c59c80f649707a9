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

/** One set of buffers of a series, the views last made of them, and the prototypes of its windows. */
interface Rows {
  cols: Float64Array[];
  /** `cols[k].buffer`, read once (a getter call in QuickJS). */
  bufs: ArrayBuffer[];
  views: Array<Float64Array | null>;
  /** Per column, the window (`from * (MAX_HISTORY + 1) + length`) its view is of; -1 for none. */
  viewOf: Float64Array;
  /** By window length: the prototype holding `_s` (these rows) and `length`, under `WINDOW`; and the last one asked for. */
  protos: Map<number, WindowProto>;
  lastProto: WindowProto | null;
}

function newRows(): Rows {
  const cols: Float64Array[] = [];
  for (let k = 0; k < 6; k++) cols.push(new F64(2 * MAX_HISTORY));
  return {
    cols,
    bufs: cols.map((c) => c.buffer as ArrayBuffer),
    views: [null, null, null, null, null, null],
    viewOf: new F64(6).fill(-1),
    protos: new Map(),
    lastProto: null,
  };
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
  const view = new F64(rows.bufs[k]!, from * 8, length);
  rows.views[k] = view;
  rows.viewOf[k] = key;
  return view;
}

/** The fields of a window: the buffers it reads and its row count (on its prototype), its first row (its own). */
interface WindowFields {
  _s: Rows;
  _f: number;
  length: number;
}

/** What a window's prototype holds: the rows and the length shared by every window of that length over them. */
interface WindowProto {
  _s: Rows;
  length: number;
}

/**
 * The prototype of every window `ctx.history` answers. A window is an object literal of one own
 * field (`_f`, its first row) over a prototype of its rows and length (`windowProto`), which is
 * made once per buffer and length: objects are costly to build in QuickJS, about 50 ns a
 * property, and class instances more so. Its columns are views made on first read (`columnView`).
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

function windowProto(rows: Rows, length: number): WindowProto {
  let proto = rows.protos.get(length);
  if (proto === undefined) {
    proto = { __proto__: WINDOW, _s: rows, length } as unknown as WindowProto;
    rows.protos.set(length, proto);
  }
  rows.lastProto = proto;
  return proto;
}

/**
 * `ctx.history` for backtests and live runs. Nothing is kept for a symbol and timeframe until the
 * strategy first reads them: then the host sends what has closed so far (one crossing), and from
 * there it takes each closed base candle, building higher-timeframe candles by the bucket rule.
 * A live run hands them over one by one (`append`, for symbols in `on`). A backtest gives each
 * batch (`beginBatch`) and reads with `upTo`, the count of the batch's candles closed now: a read
 * takes the symbol's candles closed since the last one, so the candle loop does nothing per
 * candle for history, and `endBatch` takes the rest before the batch's buffers go.
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
  /* A backtest's current batch: time, open, high, low, close and volume columns, symbol codes (-1 - s for a warm-up candle), and per symbol how many of its rows were taken. */
  let bT: Float64Array = new F64(0);
  let bO = bT;
  let bH = bT;
  let bL = bT;
  let bC = bT;
  let bV = bT;
  let batchSymbols: Int32Array = new Int32Array(0);
  let batchLength = 0;
  const taken = new Int32Array(nSym);
  /** The only series of a one-symbol backtest when it is at the run's timeframe: a read then appends its new candle itself. */
  let solo: Series | null = null;
  /* The symbol and the length of the last read, checked then: a strategy reads the same again and again. */
  let lastSymbol: unknown = null;
  let lastSymbolIndex = -1;
  let lastLength = Number.NaN;

  /* The last timeframe named, and its index: a strategy names the same one on every candle. */
  let lastName: unknown = null;
  let lastIndex = 0;
  function timeframeIndex(options: unknown): number {
    if (options === undefined || options === null) return 0;
    if (typeof options !== 'object') throw new TypeError(`options must be an object like { timeframe: '4h' }, got ${fmt(options)}`);
    return timeframeOf((options as { timeframe?: unknown }).timeframe);
  }
  function timeframeOf(tf: unknown): number {
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

  /** One closed base candle into every series of symbol `s`. */
  function appendTo(list: Series[], t: number, o: number, h: number, l: number, c: number, v: number): void {
    for (let k = 0; k < list.length; k++) {
      const series = list[k]!;
      if (series.buckets !== null) series.buckets.push(t, o, h, l, c, v);
      else pushRow(series, t, o, h, l, c, v);
    }
  }

  /** Takes the batch's rows of symbol `s` before row `upTo` not taken yet. */
  function take(s: number, upTo: number): void {
    const list = bySymbol[s]!;
    let row = taken[s]!;
    taken[s] = upTo;
    for (; row < upTo; row++) {
      if (nSym !== 1) {
        const code = batchSymbols[row]!;
        if (code !== s && -1 - code !== s) continue;
      }
      appendTo(list, bT[row]!, bO[row]!, bH[row]!, bL[row]!, bC[row]!, bV[row]!);
    }
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
    solo = nSym === 1 && tf === 0 && bySymbol[s]!.length === 1 ? series : null;
    byKey[tf * nSym + s] = series;
    on[s] = 1;
    return series;
  }

  return {
    on,
    /** Live runs: one closed base candle of symbol `s` (only called when `on[s]`). */
    append(s: number, t: number, o: number, h: number, l: number, c: number, v: number): void {
      appendTo(bySymbol[s]!, t, o, h, l, c, v);
    },
    /** Backtests: the batch whose candles a read's `upTo` counts from now on (columns as the loop reads them). */
    beginBatch(columns: Float64Array[], symbolCodes: Int32Array, n: number): void {
      bT = columns[0]!;
      bO = columns[1]!;
      bH = columns[2]!;
      bL = columns[3]!;
      bC = columns[4]!;
      bV = columns[5]!;
      batchSymbols = symbolCodes;
      batchLength = n;
      taken.fill(0);
    },
    /** Backtests: takes every candle of the batch, which has closed, before the next batch replaces it. */
    endBatch(): void {
      for (let s = 0; s < nSym; s++) if (on[s] !== 0) take(s, batchLength);
    },
    /**
     * `ctx.history(symbol, length, options?)`: up to `length` closed candles, oldest first. A
     * backtest passes `upTo`, the count of the batch's candles closed now.
     */
    read(symbol: unknown, length: unknown, options?: unknown, upTo?: number): HistoryWindow {
      let s = lastSymbolIndex;
      if (symbol !== lastSymbol) {
        s = resolve(symbol);
        lastSymbol = symbol;
        lastSymbolIndex = s;
      }
      if (length !== lastLength) {
        if (typeof length !== 'number' || !(length >= 1 && length <= MAX_HISTORY) || length !== (length | 0)) {
          throw new TypeError(`history length must be an integer from 1 to ${MAX_HISTORY}, got ${fmt(length)}`);
        }
        lastLength = length;
      }
      const tf = options === undefined ? 0 : timeframeIndex(options);
      const from = taken[s]!;
      if (from < (upTo as number)) {
        const only = solo;
        if (only !== null && from + 1 === upTo && only.len < 2 * MAX_HISTORY) {
          // The common case, one candle since the last read of the one symbol at its own timeframe, written out.
          const cols = only.rows.cols;
          const i = only.len++;
          cols[0]![i] = bT[from]!;
          cols[1]![i] = bO[from]!;
          cols[2]![i] = bH[from]!;
          cols[3]![i] = bL[from]!;
          cols[4]![i] = bC[from]!;
          cols[5]![i] = bV[from]!;
          taken[0] = from + 1;
        } else take(s, upTo as number);
      }
      const series = byKey[tf * nSym + s] ?? register(s, tf);
      const n = (length as number) < series.len ? (length as number) : series.len;
      const rows = series.rows;
      const last = rows.lastProto;
      return { __proto__: last !== null && last.length === n ? last : windowProto(rows, n), _f: series.len - n } as unknown as HistoryWindow;
    },
    /** Index of `options.timeframe` among the run's timeframes (0: the run's own); throws the strategy-facing error. */
    timeframeIndex,
    /** Index of a timeframe name (undefined: the run's own), as `timeframeIndex` reads it from options. */
    timeframeOf,
  };
}

export type CandleHistory = ReturnType<typeof createCandleHistory>;

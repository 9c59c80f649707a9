import type { StrategyCandle } from './strategy-module.js';
import type { BacktestAccount } from './backtest-account.js';
import type { BacktestOrders } from './backtest-orders.js';
import { INDICATOR_DEFS, INDICATOR_KINDS } from '../../indicators/indicator-kinds.js';
import { createCandleHistory } from './candle-history.js';
import { ALL_CANDLE_FIELDS, createCandleViews } from './candle-views.js';
import { createIndicatorApi, type IndicatorCall, parseIndicatorCall } from './indicator-api.js';
import { F64 } from './intrinsics.js';
import type { LogBuffer } from './log-buffer.js';
import type { OrderEvent, OrderEventQueue } from './order-events.js';
import type { OrderJournal } from './order-journal.js';
import { createSymbolResolver } from './symbols.js';

/**
 * Asks the host to compute an indicator series (kind code of `INDICATOR_KINDS`, symbol index,
 * timeframe index, arguments in `INDICATOR_DEFS` order, NaN past the kind's count); answers its
 * values for the current batch (`outputs x (n + 1)` numbers).
 */
export type HostRegister = (kind: number, symbol: number, timeframe: number, a0: number, a1: number, a2: number) => ArrayBuffer;

/** Asks the host for what a symbol has closed at a timeframe, as of batch index `at` (engine/history-seed.ts). */
export type BacktestHostHistory = (symbol: number, timeframe: number, at: number) => ArrayBuffer;

/** Periods below this are looked up in a per-symbol array instead of a keyed map. */
const FAST_PERIODS = 4096;

/**
 * The candle loop of a backtest, and `ctx.indicators` and `ctx.history`, which read the same
 * batch: the host computes every registered indicator series for each batch of candles, and the
 * guest reads a value by index, so an indicator call is an array read at the candle the loop
 * points at (`readIdx`: the candle just closed, or the one being filled). They share one closure
 * because the loop moves `readIdx` on every candle. `ctx.history` takes the batch's candles the
 * same way, as far as `readIdx` when read (candle-history.ts), so the loop does nothing for it per candle.
 * The loop keeps the run's clock (`now`), which the account and the orders read: create the
 * loop, then the parts with `loop.now`, then `attach` them before the first batch.
 */
export function createBacktestLoop(
  symbols: string[],
  host: { register: HostRegister; history: BacktestHostHistory },
  maxIndicators: number,
  startTime: number,
  timeframes: ReadonlyArray<{ name: string; ms: number }>,
) {
  const hostRegister = host.register;
  const nSym = symbols.length;
  const resolve = createSymbolResolver(symbols, 'run');
  let readIdx = 0;
  const history = createCandleHistory(symbols, timeframes, symIdx, (s, tf) => host.history(s, tf, readIdx));
  const readHistory = history.read;
  const timeframeIndex = history.timeframeIndex;
  const timeframeOf = history.timeframeOf;
  /*
   * Where the values of the one-period kinds (sma, ema, rsi, atr: codes 0 to 3) are, by period,
   * per symbol and timeframe (`tf * nSym + s`): the series' offset in `IND` (`1 + id * stride`,
   * redone when the batch size changes), 0 for none; other calls go through `keyed`. An offset,
   * not an id: a read is then one addition, the fewest bytecodes for the call made most often.
   */
  const nFast = nSym * timeframes.length;
  /**
   * The period map of a symbol and timeframe with no series of a kind yet: all zeros (no
   * series), never written, so an indicator call looks its period up with no test for a missing map.
   */
  const NO_PERIODS = new Int32Array(FAST_PERIODS);
  const smaM: Int32Array[] = [];
  const emaM: Int32Array[] = [];
  const rsiM: Int32Array[] = [];
  const atrM: Int32Array[] = [];
  /** Every period map entry written, as map, period and series id: their offsets change with the batch size. */
  const entryMaps: Int32Array[] = [];
  const entryPeriods: number[] = [];
  const entryIds: number[] = [];
  for (let k = 0; k < nFast; k++) {
    smaM.push(NO_PERIODS);
    emaM.push(NO_PERIODS);
    rsiM.push(NO_PERIODS);
    atrM.push(NO_PERIODS);
  }
  const fastMaps = [smaM, emaM, rsiM, atrM];
  /** The indicator values of the batch, one element after a spare one (so no offset is 0): series `id` at `1 + id * stride`. */
  let IND = new F64(1);
  let stride = 1;
  let indCount = 0;
  /** Batches run so far: with `readIdx`, names the point of the run a value is read at. */
  let batchNo = 0;
  /** Series ids of every other call, by kind, symbol, timeframe and arguments. */
  const keyed: Record<string, number> = Object.create(null);
  /* The symbol of the last ctx call, and its period maps: most calls name the candle's symbol again. */
  let lastSymName: unknown = null;
  let lastSymIdx = -1;
  let curSma: Int32Array = NO_PERIODS;
  let curEma: Int32Array = NO_PERIODS;
  let curRsi: Int32Array = NO_PERIODS;
  let curAtr: Int32Array = NO_PERIODS;
  /*
   * The timeframe last named in an indicator's options (a name never given until then), its
   * index, and the kinds' period maps at it for `lastSymIdx`: a strategy names one timeframe
   * again and again (`sma(symbol, 20, H4)`), and such a call is then a map read too.
   */
  const NO_NAME = {};
  let optName: unknown = NO_NAME;
  let optTf = 0;
  let optSma: Int32Array = NO_PERIODS;
  let optEma: Int32Array = NO_PERIODS;
  let optRsi: Int32Array = NO_PERIODS;
  let optAtr: Int32Array = NO_PERIODS;
  function setOptionMaps(): void {
    const at = optTf * nSym + lastSymIdx;
    optSma = smaM[at]!;
    optEma = emaM[at]!;
    optRsi = rsiM[at]!;
    optAtr = atrM[at]!;
  }

  function symIdx(symbol: unknown): number {
    if (symbol === lastSymName) return lastSymIdx;
    const i = resolve(symbol);
    lastSymName = symbol;
    lastSymIdx = i;
    curSma = smaM[i]!;
    curEma = emaM[i]!;
    curRsi = rsiM[i]!;
    curAtr = atrM[i]!;
    setOptionMaps();
    return i;
  }

  /** Registers a series with the host (its values for the current batch come back) and answers its id. Arguments are checked. */
  function register(code: number, s: number, tf: number, args: readonly number[]): number {
    const k = INDICATOR_DEFS[INDICATOR_KINDS[code]!].outputs.length;
    if (indCount + k > maxIndicators) throw new RangeError(`A strategy can use at most ${maxIndicators} indicator series`);
    const block = new F64(hostRegister(code, s, tf, args.length > 0 ? args[0]! : NaN, args.length > 1 ? args[1]! : NaN, args.length > 2 ? args[2]! : NaN));
    const id = indCount;
    const grown = new F64(1 + (indCount + k) * stride);
    grown.set(IND.subarray(0, 1 + indCount * stride));
    grown.set(block, 1 + indCount * stride);
    IND = grown;
    indCount += k;
    return id;
  }

  const call: IndicatorCall = { args: [], tf: 0 };
  const one: unknown[] = [undefined];
  /** Id of a one-period kind's series: from the period maps, else checked and registered. */
  function periodId(code: number, s: number, tf: number, period: unknown): number {
    const at = tf * nSym + s;
    const maps = fastMaps[code]!;
    if (typeof period === 'number' && period >= 1 && period < FAST_PERIODS && period === (period | 0)) {
      let m = maps[at]!;
      if (m === NO_PERIODS) {
        m = maps[at] = new Int32Array(FAST_PERIODS);
        if (s === lastSymIdx && tf === 0) {
          curSma = smaM[s]!;
          curEma = emaM[s]!;
          curRsi = rsiM[s]!;
          curAtr = atrM[s]!;
        }
      }
      const found = m[period]!;
      if (found > 0) return (found - 1) / stride;
      one[0] = period;
      const id = register(code, s, tf, parseIndicatorCall(INDICATOR_KINDS[code]!, one, timeframeIndex, call).args);
      m[period] = 1 + id * stride;
      entryMaps.push(m);
      entryPeriods.push(period);
      entryIds.push(id);
      return id;
    }
    one[0] = period;
    return keyedId(code, s, tf, parseIndicatorCall(INDICATOR_KINDS[code]!, one, timeframeIndex, call).args);
  }
  function keyedId(code: number, s: number, tf: number, args: readonly number[]): number {
    let key = `${code}/${s}/${tf}`;
    for (let i = 0; i < args.length; i++) key += `/${args[i]}`;
    const known = keyed[key];
    if (known !== undefined) return known;
    const id = register(code, s, tf, args);
    keyed[key] = id;
    return id;
  }
  /** `(symbol, period?, options?)` of a one-period kind with options, or a period left out. */
  function periodCall(code: number, symbol: unknown, period: unknown, options: unknown): number {
    const s = symbol === lastSymName ? lastSymIdx : symIdx(symbol);
    let p = period;
    let tf = 0;
    /* The timeframe named in `options`, read once: the cache of the fast paths keeps what this call resolved. */
    let name: unknown = NO_NAME;
    if (p !== null && typeof p === 'object') {
      tf = timeframeIndex(p);
      p = undefined;
    } else if (options !== null && typeof options === 'object') {
      name = (options as { timeframe?: unknown }).timeframe;
      tf = timeframeOf(name);
    } else if (options !== undefined) tf = timeframeIndex(options);
    if (p === undefined) p = INDICATOR_DEFS[INDICATOR_KINDS[code]!].params[0]!.default;
    // The id first: registering replaces IND.
    const id = periodId(code, s, tf, p);
    if (typeof name === 'string') {
      optName = name;
      optTf = tf;
      setOptionMaps();
    }
    return IND[1 + id * stride + readIdx]!;
  }

  const indicators = createIndicatorApi(
    (code, symbol, c, values) => {
      const id = keyedId(code, symIdx(symbol), c.tf, c.args);
      const n = INDICATOR_DEFS[INDICATOR_KINDS[code]!].outputs.length;
      for (let o = 0; o < n; o++) values[o] = IND[1 + (id + o) * stride + readIdx]!;
      return id;
    },
    timeframeIndex,
    {
      // `if (options)`, not `!== undefined`: two bytecodes fewer on every call; an options object is truthy.
      sma(symbol: string, period: number, options?: unknown): number {
        if (options) {
          if ((options as { timeframe?: unknown }).timeframe === optName && symbol === lastSymName) {
            const off = optSma[period]!;
            if (off > 0) return IND[off + readIdx]!;
          }
          return periodCall(0, symbol, period, options);
        }
        if (symbol !== lastSymName) symIdx(symbol);
        let off = curSma[period]!;
        // The id first: registering replaces IND.
        if (!(off > 0)) off = 1 + periodId(0, lastSymIdx, 0, period) * stride;
        return IND[off + readIdx]!;
      },
      ema(symbol: string, period: number, options?: unknown): number {
        if (options) {
          if ((options as { timeframe?: unknown }).timeframe === optName && symbol === lastSymName) {
            const off = optEma[period]!;
            if (off > 0) return IND[off + readIdx]!;
          }
          return periodCall(1, symbol, period, options);
        }
        if (symbol !== lastSymName) symIdx(symbol);
        let off = curEma[period]!;
        // The id first: registering replaces IND.
        if (!(off > 0)) off = 1 + periodId(1, lastSymIdx, 0, period) * stride;
        return IND[off + readIdx]!;
      },
      rsi(symbol: string, period?: number, options?: unknown): number {
        if (options && (options as { timeframe?: unknown }).timeframe === optName && symbol === lastSymName) {
          const off = optRsi[period === undefined ? 14 : period]!;
          if (off > 0) return IND[off + readIdx]!;
        }
        if (options || (period !== undefined && typeof period !== 'number')) return periodCall(2, symbol, period, options);
        const p = period === undefined ? 14 : period;
        if (symbol !== lastSymName) symIdx(symbol);
        let off = curRsi[p]!;
        if (!(off > 0)) off = 1 + periodId(2, lastSymIdx, 0, p) * stride;
        return IND[off + readIdx]!;
      },
      atr(symbol: string, period?: number, options?: unknown): number {
        if (options && (options as { timeframe?: unknown }).timeframe === optName && symbol === lastSymName) {
          const off = optAtr[period === undefined ? 14 : period]!;
          if (off > 0) return IND[off + readIdx]!;
        }
        if (options || (period !== undefined && typeof period !== 'number')) return periodCall(3, symbol, period, options);
        const p = period === undefined ? 14 : period;
        if (symbol !== lastSymName) symIdx(symbol);
        let off = curAtr[p]!;
        if (!(off > 0)) off = 1 + periodId(3, lastSymIdx, 0, p) * stride;
        return IND[off + readIdx]!;
      },
    },
    () => batchNo * 262_144 + readIdx,
  );

  /** The guest's clock: the time of the candle being processed. */
  let now = startTime;
  let ctx: unknown = null;
  /* The run's parts, set by `attach`; the candle loop reads their arrays directly. */
  let book: BacktestAccount;
  let events: OrderEventQueue;
  let logs: LogBuffer;
  let onCandle: (ctx: unknown, candle: StrategyCandle) => void;
  let onOrder: ((ctx: unknown, event: OrderEvent) => void) | undefined;
  let processBar: BacktestOrders['processBar'];
  let open: Uint8Array;
  let exBelow: Float64Array;
  let exAbove: Float64Array;
  let nextFunding: Float64Array;
  let wakeAt: Float64Array;
  let lastPrice: Float64Array;
  let queued: OrderEvent[];
  /** The run's order journal, told when orders are placed from `onOrder`; null: none. */
  let journal: OrderJournal | null = null;
  const deliver = (event: OrderEvent) => {
    onOrder!(ctx, event);
    if (logs.hit) throw new Error('Log limit reached');
  };
  /**
   * Set by `attend` when an order event is queued or the log limit is passed (the queue and the
   * log buffer call it): the loop then delivers the events, or ends the run, before going on.
   * One closure read per candle, where testing `queued.length` and `logs.hit` were two property
   * lookups: about 40 ns a candle in QuickJS (guest-loop bench, an empty onCandle: 1.09x; the
   * reference SMA: 1.02x).
   */
  let attention = false;
  function attend(): void {
    attention = true;
  }
  function settle(): void {
    if (logs.hit) throw new Error('Log limit reached');
    if (queued.length !== 0) {
      if (journal !== null) journal.setSource(1);
      events.flush(deliver);
      if (journal !== null) journal.setSource(0);
    }
    attention = false;
  }
  /** The candle fields the strategy has touched, which the loop writes before each onCandle (bit k: CANDLE_FIELDS[k]; candle-views.ts). */
  let live = 0;
  const views = createCandleViews(
    symbols,
    () => readIdx,
    (mask) => {
      live = mask;
    },
  );
  const candles = views.candles;

  /*
   * One batch of `n` candles in `buf` (see backtest-runtime.ts). For each candle: funding due,
   * fills and exits (only for a symbol with pending orders or funding due, `book.wakeAt`, or an
   * open position whose levels the candle crosses; funding due while flat is passed over), the
   * mark at the close, then `onCandle` unless it is a warm-up candle.
   * Answers flags: 1 trades, 2 logs, 4 account changes.
   */
  function runBatch(buf: ArrayBuffer, n: number): number {
    const Tm = new F64(buf, 0, n);
    const Op = new F64(buf, n * 8, n);
    const Hi = new F64(buf, n * 16, n);
    const Lo = new F64(buf, n * 24, n);
    const Cl = new F64(buf, n * 32, n);
    const Vo = new F64(buf, n * 40, n);
    batchNo++;
    if (stride !== n + 1) {
      stride = n + 1;
      for (let k = 0; k < entryMaps.length; k++) entryMaps[k]![entryPeriods[k]!] = 1 + entryIds[k]! * stride;
    }
    // From the last volume on, a spare element before the first series (see `IND`).
    IND = new F64(buf, (n * 6 - 1) * 8, 1 + indCount * stride);
    const Sy = new Int32Array(buf, (n * 6 + indCount * stride) * 8, n);
    const columns = [Tm, Op, Hi, Lo, Cl, Vo];
    history.beginBatch(columns, Sy, n);
    views.beginBatch(columns, Sy);
    for (let i = 0; i < n; i++) {
      const t = Tm[i]!;
      let s = Sy[i]!;
      const call = s >= 0;
      if (!call) s = -1 - s;
      now = t;
      let held = open[s]!;
      if (t >= wakeAt[s]! || (held !== 0 && (Lo[i]! <= exBelow[s]! || Hi[i]! >= exAbove[s]!))) {
        readIdx = i;
        if (t >= nextFunding[s]!) book.fund(s, t, Op[i]!);
        processBar(s, t, Op[i]!, Hi[i]!, Lo[i]!);
        book.recordState(i, s);
        if (attention) settle();
        held = open[s]!;
      }
      if (held !== 0) lastPrice[s] = Cl[i]!;
      if (call) {
        const cd = candles[s]!;
        if (live === ALL_CANDLE_FIELDS) {
          cd.time = t;
          cd.open = Op[i]!;
          cd.high = Hi[i]!;
          cd.low = Lo[i]!;
          cd.close = Cl[i]!;
          cd.volume = Vo[i]!;
        } else if (live !== 0) {
          if ((live & 1) !== 0) cd.time = t;
          if ((live & 2) !== 0) cd.open = Op[i]!;
          if ((live & 4) !== 0) cd.high = Hi[i]!;
          if ((live & 8) !== 0) cd.low = Lo[i]!;
          if ((live & 16) !== 0) cd.close = Cl[i]!;
          if ((live & 32) !== 0) cd.volume = Vo[i]!;
        }
        readIdx = i + 1;
        onCandle(ctx, cd);
        if (attention) settle();
      }
    }
    history.endBatch();
    views.endBatch(n);
    return (book.tradeCount > 0 ? 1 : 0) | (logs.hasLines() ? 2 : 0) | (book.stateCount > 0 ? 4 : 0);
  }

  return {
    indicators,
    /** `ctx.history`: what has closed as of `readIdx`. */
    history: (symbol: unknown, length: unknown, options?: unknown) => readHistory(symbol, length, options, readIdx),
    symIdx,
    runBatch,
    /** Tells the loop to look before going on: an order event was queued, or the log limit passed. */
    attend,
    /** The run's clock, for the account, the orders and `ctx.now()`: one call, no wrapper. */
    now: () => now,
    setNow(t: number): void {
      now = t;
    },
    setCtx(c: unknown): void {
      ctx = c;
    },
    /** Gives the loop the run's parts (built with `now`); `onCandle` and `onOrder` are called with the `ctx` given to `setCtx`. */
    attach(run: {
      book: BacktestAccount;
      orders: BacktestOrders;
      events: OrderEventQueue;
      logs: LogBuffer;
      onCandle: (ctx: unknown, candle: StrategyCandle) => void;
      onOrder: ((ctx: unknown, event: OrderEvent) => void) | undefined;
      journal?: OrderJournal | null;
    }): void {
      ({ book, events, logs, onCandle, onOrder } = run);
      journal = run.journal ?? null;
      processBar = run.orders.processBar;
      ({ open, exBelow, exAbove, nextFunding, wakeAt, lastPrice } = book);
      queued = events.list;
      logs.onLimit = attend;
      // Passed while the module loaded (the strategy caught the throw): the first candle ends the run.
      if (logs.hit) attention = true;
    },
  };
}

import type { StrategyCandle } from './strategy-module.js';
import type { BacktestAccount } from './backtest-account.js';
import type { BacktestOrders } from './backtest-orders.js';
import { fmt } from './format.js';
import { F64, freeze } from './intrinsics.js';
import type { LogBuffer } from './log-buffer.js';
import type { OrderEvent, OrderEventQueue } from './order-events.js';
import { createSymbolResolver } from './symbols.js';

/** Indicator kinds, by the code the guest passes to the host. */
export const GUEST_INDICATOR_KINDS = ['sma', 'ema', 'rsi', 'atr', 'bollinger'] as const;

/** Asks the host to compute an indicator series; answers its values for the current batch (`outputs x (n + 1)` numbers). */
export type HostRegister = (kind: number, symbol: number, period: number, multiplier: number) => ArrayBuffer;

/** Periods below this are looked up in a per-symbol array instead of a keyed map. */
const FAST_PERIODS = 4096;

/**
 * The candle loop of a backtest, and `ctx.indicators`, which read the same batch: the host
 * computes every registered indicator series for each batch of candles, and the guest reads a
 * value by index, so an indicator call is an array read at the candle the loop points at
 * (`readIdx`: the candle just closed, or the one being filled). They share one closure because
 * the loop moves `readIdx` on every candle.
 * The loop keeps the run's clock (`now`), which the account and the orders read: create the
 * loop, then the parts with `loop.now`, then `attach` them before the first batch.
 */
export function createBacktestLoop(symbols: string[], hostRegister: HostRegister, maxIndicators: number, startTime: number) {
  const nSym = symbols.length;
  const resolve = createSymbolResolver(symbols, 'run');
  let readIdx = 0;
  /**
   * The period map of a symbol with no series of a kind yet: all zeros (no series), never
   * written, so an indicator call looks its period up with no test for a missing map.
   */
  const NO_PERIODS = new Int16Array(FAST_PERIODS);
  const smaM: Int16Array[] = [];
  const emaM: Int16Array[] = [];
  const rsiM: Int16Array[] = [];
  const atrM: Int16Array[] = [];
  const bbM: Array<Record<string, number>> = [];
  for (let s = 0; s < nSym; s++) {
    smaM.push(NO_PERIODS);
    emaM.push(NO_PERIODS);
    rsiM.push(NO_PERIODS);
    atrM.push(NO_PERIODS);
    bbM.push(Object.create(null));
  }
  let IND = new F64(0);
  let stride = 1;
  let indCount = 0;
  let batchNo = 0;
  const bbCache: Array<{ b: number; i: number; v: { upper: number; middle: number; lower: number } }> = [];
  const slowMaps: Record<string, number> = Object.create(null);
  /* The symbol of the last ctx call, and its period maps: most calls name the candle's symbol again. */
  let lastSymName: unknown = null;
  let lastSymIdx = -1;
  let curSma: Int16Array = NO_PERIODS;
  let curEma: Int16Array = NO_PERIODS;
  let curRsi: Int16Array = NO_PERIODS;
  let curAtr: Int16Array = NO_PERIODS;

  function symIdx(symbol: unknown): number {
    if (symbol === lastSymName) return lastSymIdx;
    const i = resolve(symbol);
    lastSymName = symbol;
    lastSymIdx = i;
    curSma = smaM[i]!;
    curEma = emaM[i]!;
    curRsi = rsiM[i]!;
    curAtr = atrM[i]!;
    return i;
  }

  function register(map: Record<string, number>, key: string, kind: number, s: number, period: unknown, mult: unknown): number {
    if (typeof period !== 'number' || !Number.isInteger(period) || period < 1 || period > 100000) {
      throw new TypeError(`${GUEST_INDICATOR_KINDS[kind]} period must be an integer from 1 to 100000, got ${fmt(period)}`);
    }
    if (kind === 4 && !(typeof mult === 'number' && mult > 0 && mult <= 100))
      throw new TypeError(`bollinger multiplier must be a number in (0, 100], got ${fmt(mult)}`);
    const k = kind === 4 ? 3 : 1;
    if (indCount + k > maxIndicators) throw new RangeError(`A strategy can use at most ${maxIndicators} indicator series`);
    const block = new F64(hostRegister(kind, s, period, mult as number));
    const id = indCount;
    const grown = new F64((indCount + k) * stride);
    grown.set(IND.subarray(0, indCount * stride));
    grown.set(block, indCount * stride);
    IND = grown;
    indCount += k;
    map[key] = id;
    return id;
  }
  function periodMap(maps: Int16Array[], s: number): Int16Array {
    let m = maps[s]!;
    if (m === NO_PERIODS) {
      m = maps[s] = new Int16Array(FAST_PERIODS);
      curSma = smaM[lastSymIdx]!;
      curEma = emaM[lastSymIdx]!;
      curRsi = rsiM[lastSymIdx]!;
      curAtr = atrM[lastSymIdx]!;
    }
    return m;
  }
  function slowId(maps: Int16Array[], kind: number, period: unknown): number {
    let m = maps[lastSymIdx]!;
    if (m === NO_PERIODS) m = periodMap(maps, lastSymIdx);
    if (typeof period === 'number' && Number.isInteger(period) && period >= 1 && period < FAST_PERIODS) {
      const found = m[period]!;
      if (found > 0) return found - 1;
      const id = register(slowMaps, `${GUEST_INDICATOR_KINDS[kind]}${lastSymIdx}/${period}`, kind, lastSymIdx, period, 0);
      m[period] = id + 1;
      return id;
    }
    const key = `${GUEST_INDICATOR_KINDS[kind]}${lastSymIdx}/${period}`;
    const known = slowMaps[key];
    return known !== undefined ? known : register(slowMaps, key, kind, lastSymIdx, period, 0);
  }

  const indicators = freeze({
    sma(symbol: string, period: number): number {
      if (symbol !== lastSymName) symIdx(symbol);
      let id = curSma[period]! - 1;
      if (!(id >= 0)) id = slowId(smaM, 0, period);
      return IND[id * stride + readIdx]!;
    },
    ema(symbol: string, period: number): number {
      if (symbol !== lastSymName) symIdx(symbol);
      let id = curEma[period]! - 1;
      if (!(id >= 0)) id = slowId(emaM, 1, period);
      return IND[id * stride + readIdx]!;
    },
    rsi(symbol: string, period?: number): number {
      const p = period === undefined ? 14 : period;
      if (symbol !== lastSymName) symIdx(symbol);
      let id = curRsi[p]! - 1;
      if (!(id >= 0)) id = slowId(rsiM, 2, p);
      return IND[id * stride + readIdx]!;
    },
    atr(symbol: string, period?: number): number {
      const p = period === undefined ? 14 : period;
      if (symbol !== lastSymName) symIdx(symbol);
      let id = curAtr[p]! - 1;
      if (!(id >= 0)) id = slowId(atrM, 3, p);
      return IND[id * stride + readIdx]!;
    },
    bollinger(symbol: string, period?: number, multiplier?: number) {
      const p = period === undefined ? 20 : period;
      const mult = multiplier === undefined ? 2 : multiplier;
      const m = bbM[symIdx(symbol)]!;
      const key = `${p}/${mult}`;
      let id = m[key];
      if (id === undefined) id = register(m, key, 4, lastSymIdx, p, mult);
      const c = bbCache[id];
      const at = readIdx;
      if (c !== undefined && c.b === batchNo && c.i === at) return c.v;
      const base = id * stride + at;
      const v = freeze({ upper: IND[base]!, middle: IND[base + stride]!, lower: IND[base + 2 * stride]! });
      bbCache[id] = { b: batchNo, i: at, v };
      return v;
    },
  });

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
  const deliver = (event: OrderEvent) => {
    onOrder!(ctx, event);
    if (logs.hit) throw new Error('Log limit reached');
  };
  const candles: StrategyCandle[] = [];
  for (let s = 0; s < nSym; s++) candles.push({ symbol: symbols[s]!, time: 0, open: 0, high: 0, low: 0, close: 0, volume: 0 });

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
    stride = n + 1;
    IND = new F64(buf, n * 6 * 8, indCount * stride);
    const Sy = new Int32Array(buf, (n * 6 + indCount * stride) * 8, n);
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
        if (queued.length !== 0) events.flush(deliver);
        held = open[s]!;
      }
      if (held !== 0) lastPrice[s] = Cl[i]!;
      if (call) {
        const cd = candles[s]!;
        cd.time = t;
        cd.open = Op[i]!;
        cd.high = Hi[i]!;
        cd.low = Lo[i]!;
        cd.close = Cl[i]!;
        cd.volume = Vo[i]!;
        readIdx = i + 1;
        onCandle(ctx, cd);
        if (queued.length !== 0 || logs.hit) {
          if (logs.hit) throw new Error('Log limit reached');
          events.flush(deliver);
        }
      }
    }
    return (book.tradeCount > 0 ? 1 : 0) | (logs.hasLines() ? 2 : 0) | (book.stateCount > 0 ? 4 : 0);
  }

  return {
    indicators,
    symIdx,
    runBatch,
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
    }): void {
      ({ book, events, logs, onCandle, onOrder } = run);
      processBar = run.orders.processBar;
      ({ open, exBelow, exAbove, nextFunding, wakeAt, lastPrice } = book);
      queued = events.list;
    },
  };
}

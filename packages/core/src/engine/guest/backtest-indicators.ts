import { fmt } from './format.js';
import { F64, freeze } from './intrinsics.js';

/** Indicator kinds, by the code the guest passes to the host. */
export const GUEST_INDICATOR_KINDS = ['sma', 'ema', 'rsi', 'atr', 'bollinger'] as const;

/** Asks the host to compute an indicator series; answers its values for the current batch (`outputs x (n + 1)` numbers). */
export type HostRegister = (kind: number, symbol: number, period: number, multiplier: number) => ArrayBuffer;

/** Periods below this are looked up in a per-symbol array instead of a keyed map. */
const FAST_PERIODS = 4096;

/**
 * `ctx.indicators` of a backtest: the host computes every registered series for each batch of
 * candles; the guest reads a value by index, so an indicator call is an array read. `cursor[0]`
 * is the index the loop points at (the candle just closed, or the one being filled).
 */
export function createBacktestIndicators(symbols: string[], hostRegister: HostRegister, maxIndicators: number) {
  const nSym = symbols.length;
  const symIndex: Record<string, number> = Object.create(null);
  for (let s = 0; s < nSym; s++) symIndex[symbols[s]!] = s;
  const cursor = new Int32Array(1);
  const smaM: Array<Int16Array | null> = [];
  const emaM: Array<Int16Array | null> = [];
  const rsiM: Array<Int16Array | null> = [];
  const atrM: Array<Int16Array | null> = [];
  const bbM: Array<Record<string, number>> = [];
  for (let s = 0; s < nSym; s++) {
    smaM.push(null);
    emaM.push(null);
    rsiM.push(null);
    atrM.push(null);
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
  let curSma: Int16Array | null = null;
  let curEma: Int16Array | null = null;
  let curRsi: Int16Array | null = null;
  let curAtr: Int16Array | null = null;

  function symIdx(symbol: unknown): number {
    if (symbol === lastSymName) return lastSymIdx;
    const i = typeof symbol === 'string' ? symIndex[symbol] : undefined;
    if (i === undefined) throw new TypeError(`Unknown symbol ${fmt(symbol)}; this run trades ${symbols.join(', ')}`);
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
  function periodMap(maps: Array<Int16Array | null>, s: number): Int16Array {
    let m = maps[s]!;
    if (m === null) {
      m = maps[s] = new Int16Array(FAST_PERIODS);
      curSma = smaM[lastSymIdx]!;
      curEma = emaM[lastSymIdx]!;
      curRsi = rsiM[lastSymIdx]!;
      curAtr = atrM[lastSymIdx]!;
    }
    return m;
  }
  function slowId(maps: Array<Int16Array | null>, kind: number, period: unknown): number {
    let m = maps[lastSymIdx]!;
    if (m === null) m = periodMap(maps, lastSymIdx);
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
      let id = curSma !== null ? curSma[period]! - 1 : -1;
      if (!(id >= 0)) id = slowId(smaM, 0, period);
      return IND[id * stride + cursor[0]!]!;
    },
    ema(symbol: string, period: number): number {
      if (symbol !== lastSymName) symIdx(symbol);
      let id = curEma !== null ? curEma[period]! - 1 : -1;
      if (!(id >= 0)) id = slowId(emaM, 1, period);
      return IND[id * stride + cursor[0]!]!;
    },
    rsi(symbol: string, period?: number): number {
      const p = period === undefined ? 14 : period;
      if (symbol !== lastSymName) symIdx(symbol);
      let id = curRsi !== null ? curRsi[p]! - 1 : -1;
      if (!(id >= 0)) id = slowId(rsiM, 2, p);
      return IND[id * stride + cursor[0]!]!;
    },
    atr(symbol: string, period?: number): number {
      const p = period === undefined ? 14 : period;
      if (symbol !== lastSymName) symIdx(symbol);
      let id = curAtr !== null ? curAtr[p]! - 1 : -1;
      if (!(id >= 0)) id = slowId(atrM, 3, p);
      return IND[id * stride + cursor[0]!]!;
    },
    bollinger(symbol: string, period?: number, multiplier?: number) {
      const p = period === undefined ? 20 : period;
      const mult = multiplier === undefined ? 2 : multiplier;
      const m = bbM[symIdx(symbol)]!;
      const key = `${p}/${mult}`;
      let id = m[key];
      if (id === undefined) id = register(m, key, 4, lastSymIdx, p, mult);
      const c = bbCache[id];
      const at = cursor[0]!;
      if (c !== undefined && c.b === batchNo && c.i === at) return c.v;
      const base = id * stride + at;
      const v = freeze({ upper: IND[base]!, middle: IND[base + stride]!, lower: IND[base + 2 * stride]! });
      bbCache[id] = { b: batchNo, i: at, v };
      return v;
    },
  });

  return {
    indicators,
    symIdx,
    cursor,
    /** Points the reader at a new batch of `n` candles; answers where the symbol column starts (in numbers). */
    setBatch(buf: ArrayBuffer, n: number): number {
      batchNo++;
      stride = n + 1;
      IND = new F64(buf, n * 6 * 8, indCount * stride);
      return n * 6 + indCount * stride;
    },
  };
}

import { describe, expect, it } from 'vitest';
import { buildHistorySeed, type CandleColumnsLike } from '../history-seed.js';
import { createCandleHistory, MAX_HISTORY } from './candle-history.js';
import { createSymbolResolver } from './symbols.js';

const H = 3_600_000;
const H4 = 4 * H;

/** Hourly candles with distinct values: open i, high i + 0.5, low i - 0.5, close i + 0.25, volume 1 + i % 3, skipping `gaps`. */
function hourly(n: number, start: number, gaps: ReadonlySet<number> = new Set()): CandleColumnsLike & { length: number } {
  const rows = Array.from({ length: n }, (_, i) => i).filter((i) => !gaps.has(i));
  return {
    length: rows.length,
    time: rows.map((i) => start + i * H),
    open: rows.map((i) => i),
    high: rows.map((i) => i + 0.5),
    low: rows.map((i) => i - 0.5),
    close: rows.map((i) => i + 0.25),
    volume: rows.map((i) => 1 + (i % 3)),
  };
}

/** 4h candles computed directly: group by floor(time / 4h), keep groups whose last hour is at or before `upTo`'s hour or which a later candle follows. */
function fourHourly(c: ReturnType<typeof hourly>, seen: number) {
  const groups = new Map<number, number[]>();
  for (let i = 0; i < seen; i++) {
    const b = Math.floor(c.time[i]! / H4) * H4;
    groups.set(b, [...(groups.get(b) ?? []), i]);
  }
  const lastTime = c.time[seen - 1]!;
  const out: number[][] = [];
  for (const [b, idx] of groups) {
    const complete = lastTime + H >= b + H4 || lastTime >= b + H4;
    if (!complete) continue;
    out.push([
      b,
      c.open[idx[0]!]!,
      Math.max(...idx.map((i) => c.high[i]!)),
      Math.min(...idx.map((i) => c.low[i]!)),
      c.close[idx.at(-1)!]!,
      idx.reduce((a, i) => a + c.volume[i]!, 0),
    ]);
  }
  return out;
}

/** A history of one symbol at 1h and 4h, registered after `registerAt` candles, then fed the rest. */
function drive(c: ReturnType<typeof hourly>, registerAt: number, until: number) {
  let fed = registerAt;
  const history = createCandleHistory(
    ['BTC/USDT'],
    [
      { name: '1h', ms: H },
      { name: '4h', ms: H4 },
    ],
    createSymbolResolver(['BTC/USDT'], 'run'),
    (_s, tf) => buildHistorySeed(c, fed, tf === 0 ? H : H4, H, MAX_HISTORY).buffer as ArrayBuffer,
  );
  history.read('BTC/USDT', 1);
  history.read('BTC/USDT', 1, { timeframe: '4h' });
  for (; fed < until; fed++) history.append(0, c.time[fed]!, c.open[fed]!, c.high[fed]!, c.low[fed]!, c.close[fed]!, c.volume[fed]!);
  return history;
}

const rowsOf = (w: {
  length: number;
  time: Float64Array;
  open: Float64Array;
  high: Float64Array;
  low: Float64Array;
  close: Float64Array;
  volume: Float64Array;
}) => Array.from({ length: w.length }, (_, i) => [w.time[i]!, w.open[i]!, w.high[i]!, w.low[i]!, w.close[i]!, w.volume[i]!]);

describe('ctx.history', () => {
  const start = Date.UTC(2024, 0, 1, 1); // 01:00, so the first 4h bucket is partial
  const c = hourly(60, start, new Set([22, 23, 30]));

  it('answers the last closed candles of the run timeframe, oldest first, the current one last', () => {
    const h = drive(c, 5, 20);
    const w = h.read('BTC/USDT', 3);
    expect(w.length).toBe(3);
    expect(Array.from(w.time)).toEqual([c.time[17], c.time[18], c.time[19]]);
    expect(Array.from(w.close)).toEqual([c.close[17], c.close[18], c.close[19]]);
    expect(h.read('BTC/USDT', 500).length).toBe(20);
  });

  it('builds 4h candles only once their last hour (or a later candle after a gap) has closed, whenever it is first read', () => {
    for (const registerAt of [1, 3, 4, 21, 35]) {
      for (const until of [registerAt + 1, 25, 40, c.length]) {
        if (until < registerAt) continue;
        const w = drive(c, registerAt, until).read('BTC/USDT', 100, { timeframe: '4h' });
        expect(rowsOf(w)).toEqual(fourHourly(c, until));
      }
    }
  });

  it('never includes a 4h candle whose hours have not all closed', () => {
    const h = drive(c, 1, 10); // hours 1..10 after 01:00 -> up to 10:00 closes at 11:00
    const w = h.read('BTC/USDT', 100, { timeframe: '4h' });
    for (let i = 0; i < w.length; i++) expect(w.time[i]! + H4).toBeLessThanOrEqual(c.time[9]! + H);
  });

  it('keeps the last MAX_HISTORY candles when more have closed', () => {
    const long = hourly(2 * MAX_HISTORY + 123, start);
    const h = drive(long, 10, long.length);
    const w = h.read('BTC/USDT', MAX_HISTORY);
    expect(w.length).toBe(MAX_HISTORY);
    expect(w.time[0]).toBe(long.time[long.length - MAX_HISTORY]);
    expect(w.close[MAX_HISTORY - 1]).toBe(long.close[long.length - 1]);
  });

  it('gives views that keep their values as the run goes on, past a full buffer too', () => {
    const long = hourly(2 * MAX_HISTORY + 50, start);
    const h = drive(long, 10, 20);
    const w = h.read('BTC/USDT', 3);
    expect(w.close).toBe(w.close); // one view per window
    const kept = Array.from(w.close);
    for (let i = 20; i < long.length; i++) h.append(0, long.time[i]!, long.open[i]!, long.high[i]!, long.low[i]!, long.close[i]!, long.volume[i]!);
    expect(Array.from(w.close)).toEqual(kept);
    expect(Array.from(h.read('BTC/USDT', 2).close)).toEqual([long.close[long.length - 2], long.close[long.length - 1]]);
  });

  /**
   * A backtest's way: batches of `size` candles of two symbols (AAA every hour, BBB with gaps),
   * reads at batch index `upTo` as the loop makes them, and the history registered mid-batch.
   */
  function batched(size: number, symbols: 1 | 2) {
    const a = hourly(2 * MAX_HISTORY + 400, start);
    const b = hourly(symbols === 2 ? 2 * MAX_HISTORY + 400 : 0, start, new Set(Array.from({ length: 2000 }, (_, i) => 3 * i + 1)));
    // Merged in time order, AAA first at equal times; the first 30 are warm-up candles (symbol -1 - s).
    const order: Array<[number, number]> = [];
    for (let i = 0, j = 0; i < a.length || j < b.length; ) {
      if (j >= b.length || (i < a.length && a.time[i]! <= b.time[j]!)) order.push([0, i++]);
      else order.push([1, j++]);
    }
    const cols = [a, b];
    let base = 0;
    const seen = [0, 0];
    const names = ['AAA/USDT', 'BBB/USDT'].slice(0, symbols);
    const history = createCandleHistory(
      names,
      [
        { name: '1h', ms: H },
        { name: '4h', ms: H4 },
      ],
      createSymbolResolver(names, 'run'),
      (s, tf) => buildHistorySeed(cols[s]!, seen[s]!, tf === 0 ? H : H4, H, MAX_HISTORY).buffer as ArrayBuffer,
    );
    return {
      order,
      cols,
      history,
      /** Runs the batches, calling `at(row, upTo)` for every candle with `seen` as of it. */
      run(at: (k: number, upTo: number) => void) {
        for (base = 0; base < order.length; base += size) {
          const n = Math.min(size, order.length - base);
          const batch = Array.from({ length: 6 }, () => new Float64Array(n));
          const codes = new Int32Array(n);
          for (let r = 0; r < n; r++) {
            const [s, i] = order[base + r]!;
            const c = cols[s]!;
            [c.time, c.open, c.high, c.low, c.close, c.volume].forEach((col, k) => {
              batch[k]![r] = col[i]!;
            });
            codes[r] = base + r < 30 ? -1 - s : s;
          }
          history.beginBatch(batch, codes, n);
          for (let r = 0; r < n; r++) {
            seen[order[base + r]![0]]!++;
            at(base + r, r + 1);
          }
          history.endBatch();
        }
      },
    };
  }

  it('in a backtest, takes the candles of a batch as far as a read is made, for one symbol or two, across batches and a full buffer', () => {
    for (const [size, symbols] of [
      [1, 2],
      [7, 2],
      [512, 2],
      [1, 1],
      [512, 1],
    ] as const) {
      const t = batched(size, symbols);
      let kept: { w: ReturnType<typeof t.history.read>; close: number[] } | null = null;
      let checked = 0;
      t.run((k, upTo) => {
        const [s, i] = t.order[k]!;
        const symbol = s === 0 ? 'AAA/USDT' : 'BBB/USDT';
        const c = t.cols[s]!;
        // AAA read on most candles (from candle 5), BBB every 5th candle from 100, 4h of AAA from 3000.
        if (s === 0 && i >= 5 && i % 4 !== 3) {
          const w = t.history.read(symbol, 50, undefined, upTo);
          expect(w.length).toBe(Math.min(50, i + 1));
          expect(w.close[w.length - 1]).toBe(c.close[i]);
          expect(w.time[0]).toBe(c.time[i + 1 - w.length]);
          if (i === 200) kept = { w, close: Array.from(w.close) };
          checked++;
        }
        if (s === 1 && k >= 100 && k % 5 === 0) {
          const w = t.history.read(symbol, 3, undefined, upTo);
          expect(Array.from(w.close)).toEqual([c.close[i - 2], c.close[i - 1], c.close[i]]);
          checked++;
        }
        if (s === 0 && i >= 3000 && i % 97 === 0) {
          const w = t.history.read(symbol, 100, { timeframe: '4h' }, upTo);
          expect(rowsOf(w)).toEqual(fourHourly(c, i + 1).slice(-100));
          checked++;
        }
      });
      expect(checked).toBeGreaterThan(symbols === 2 ? 7000 : 5000);
      // A window read early keeps its values after the buffers were replaced.
      expect(Array.from(kept!.w.close)).toEqual(kept!.close);
    }
  });

  it('refuses bad lengths, unknown symbols and undeclared timeframes with clear errors', () => {
    const h = drive(c, 5, 10);
    expect(() => h.read('BTC/USDT', 0)).toThrow(/length must be an integer from 1 to 5000/);
    expect(() => h.read('BTC/USDT', MAX_HISTORY + 1)).toThrow(/length/);
    expect(() => h.read('BTC/USDT', 2.5)).toThrow(/length/);
    expect(() => h.read('ETH/USDT', 2)).toThrow(/Unknown symbol/);
    expect(() => h.read('BTC/USDT', 2, { timeframe: '1d' })).toThrow(/not declared in meta.timeframes \(declared: 4h\)/);
    expect(() => h.read('BTC/USDT', 2, '4h')).toThrow(/options must be an object/);
  });
});

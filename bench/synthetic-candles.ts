/**
 * Inputs shared by the engine benchmarks: the reference SMA-crossover strategy, the strategy
 * API's history strategy, and a deterministic random walk of one-minute candles.
 */
/** The reference SMA(10/50) crossover, on one-minute candles. */
export const REFERENCE_STRATEGY = `export const meta = {
  timeframe: '1m',
  warmup: 50,
  params: { fast: { type: 'int', default: 10, min: 2 }, slow: { type: 'int', default: 50 } },
};
export function onCandle(ctx, candle) {
  const f = ctx.indicators.sma(candle.symbol, ctx.params.fast);
  const s = ctx.indicators.sma(candle.symbol, ctx.params.slow);
  if (f > s && !ctx.position(candle.symbol)) ctx.buy(candle.symbol, { size: 0.1 });
  if (f < s && ctx.position(candle.symbol)) ctx.close(candle.symbol);
}`;

/** Reads 100 candles of history and a 4h indicator on every candle: a momentum entry in the 4h trend (the options object made once, as docs/strategy-api.md advises). */
export const HISTORY_STRATEGY = `export const meta = {
  timeframe: '1m',
  timeframes: ['4h'],
  warmup: 100,
};
const H4 = { timeframe: '4h' };
export function onCandle(ctx, candle) {
  const h = ctx.history(candle.symbol, 100);
  const close = h.close;
  const momentum = close[h.length - 1] - close[0];
  const trend = ctx.indicators.sma(candle.symbol, 20, H4);
  const pos = ctx.position(candle.symbol);
  if (!pos && momentum > 0 && candle.close > trend) ctx.buy(candle.symbol, { size: 0.1 });
  else if (pos && (momentum < 0 || candle.close < trend)) ctx.close(candle.symbol);
}`;

/** Deterministic random walk of one-minute candles (mulberry32). */
/** Candle columns, as the engine takes them. */
export interface SyntheticCandles {
  time: Float64Array;
  open: Float64Array;
  high: Float64Array;
  low: Float64Array;
  close: Float64Array;
  volume: Float64Array;
}

export function syntheticCandles(n: number, seed = 42): SyntheticCandles {
  let a = seed >>> 0;
  const rnd = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const time = new Float64Array(n);
  const open = new Float64Array(n);
  const high = new Float64Array(n);
  const low = new Float64Array(n);
  const close = new Float64Array(n);
  const volume = new Float64Array(n);
  let price = 30_000;
  const start = Date.UTC(2023, 0, 1);
  for (let i = 0; i < n; i++) {
    const o = price;
    price = Math.max(1, price * (1 + (rnd() - 0.5) * 0.003));
    time[i] = start + i * 60_000;
    open[i] = o;
    close[i] = price;
    high[i] = Math.max(o, price) * (1 + rnd() * 0.001);
    low[i] = Math.min(o, price) * (1 - rnd() * 0.001);
    volume[i] = 1 + rnd() * 10;
  }
  return { time, open, high, low, close, volume };
}

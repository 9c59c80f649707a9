import { TIMEFRAME_MS, type CandleSeries, type TimeframeName } from '../../ports/market-data.js';
import { SandboxError } from '../../sandbox/sandbox-error.js';

/** One candle. `time` is the candle's open time, in ms since the epoch or an ISO string. */
export interface CandleInput {
  time: number | string;
  open: number;
  high: number;
  low: number;
  close: number;
  volume: number;
}

/** Candles of one symbol as columns (cheaper for large backtests): all arrays the same length. */
export interface CandleColumns {
  time: ArrayLike<number>;
  open: ArrayLike<number>;
  high: ArrayLike<number>;
  low: ArrayLike<number>;
  close: ArrayLike<number>;
  volume: ArrayLike<number>;
}

/** A backtest for the engine. Everything but `source` and `candles` has a default. */
export interface BacktestJob {
  /** Strategy source, JavaScript or TypeScript (types are stripped in the sandbox's child). */
  source: string;
  /** Candles per symbol, ascending by time. Candles before `startTime` only warm up indicators. */
  candles: Record<string, readonly CandleInput[] | CandleColumns>;
  /** Order of the symbols (ties in time are processed in this order). Default: the keys of `candles`. */
  symbols?: string[];
  /** First candle time that is traded and marked; earlier candles are indicator history. Default: the first candle. */
  startTime?: number | string;
  /**
   * The candles' timeframe, from which `meta.timeframes` candles are built. Default: the
   * strategy's `meta.timeframe`, else the smallest step between two candles of a symbol.
   */
  timeframe?: TimeframeName;
  /** Fees as fractions of notional. Default maker 0.0002, taker 0.0005. */
  fees?: { maker: number; taker: number };
  /** Default 1. */
  leverage?: number;
  /** Fraction of price moved against the trader on market and stop fills. Default 0. */
  slippage?: number;
  /** Default 10,000. */
  initialCapital?: number;
  /** Parameters as the API gives them (strings), parsed against `meta.params`. */
  params?: Record<string, string>;
  /** Seed of the guest's `Math.random` / `ctx.random`. Default 1. */
  seed?: number;
  /** `SPOT` forbids short selling and liquidation. Default `LINEAR`. */
  marketType?: 'LINEAR' | 'SPOT';
  /** Maintenance margin, as a fraction of entry notional. Default 0.005. */
  maintenanceMarginRate?: number;
  /**
   * Funding rates per symbol (LINEAR only): at each `time` (epoch ms, ascending), an open
   * position pays `quantity x price x rate` (longs pay a positive rate, shorts receive it).
   * A symbol without a series pays no funding. Default: none.
   */
  funding?: Record<string, FundingColumns>;
  /**
   * Keep the order journal: the result's `journal` lists every order and engine close with its
   * outcome (docs/engine.md, "The order journal"). Default false.
   */
  journal?: boolean;
}

/** Funding events of one symbol as columns: `time[i]` (epoch ms, strictly ascending) and the `rate[i]` charged then. */
export interface FundingColumns {
  time: ArrayLike<number>;
  rate: ArrayLike<number>;
}

/** Candles of one symbol as the child receives them: six checked columns of the same length. */
export type WireCandles = Pick<CandleSeries, 'time' | 'open' | 'high' | 'low' | 'close' | 'volume'>;

/** The job as the child process receives it. */
export interface WireJob {
  source: string;
  symbols: string[];
  candles: WireCandles[];
  /** Per symbol, how many leading candles are history before `startTime`. */
  history: number[];
  startTime: number;
  /** The candles' timeframe when the caller gave it. */
  timeframe: TimeframeName | null;
  fees: { maker: number; taker: number };
  leverage: number;
  slippage: number;
  initialCapital: number;
  params: Record<string, string>;
  seed: number;
  marketType: 'LINEAR' | 'SPOT';
  maintenanceMarginRate: number;
  /** Per symbol (in `symbols` order), its funding events, or null: none. */
  funding: Array<{ time: Float64Array; rate: Float64Array } | null>;
  /** Keep the order journal (absent: no). */
  journal?: boolean;
}

function invalid(message: string): never {
  throw new SandboxError('INVALID_JOB', message);
}

function toMs(value: number | string, where: string): number {
  const ms = typeof value === 'number' ? value : Date.parse(value);
  if (!Number.isFinite(ms)) invalid(`${where}: invalid time ${String(value)}`);
  return ms;
}

/**
 * A compact Float64Array copy of a column, unless it already is one. A view into a larger buffer
 * is copied too: structured clone would send the whole buffer to the child.
 */
function column(a: ArrayLike<number>): Float64Array {
  if (a instanceof Float64Array) return a.byteOffset === 0 && a.byteLength === a.buffer.byteLength ? a : a.slice();
  return Float64Array.from(a);
}

function checkColumns(symbol: string, c: CandleColumns): WireCandles {
  const n = c.time.length;
  if (c.open.length !== n || c.high.length !== n || c.low.length !== n || c.close.length !== n || c.volume.length !== n) {
    invalid(`candles["${symbol}"]: all columns must have the same length`);
  }
  const out = { time: column(c.time), open: column(c.open), high: column(c.high), low: column(c.low), close: column(c.close), volume: column(c.volume) };
  const { time, open, high, low, close, volume } = out;
  let prev = -Infinity;
  for (let i = 0; i < n; i++) {
    const t = time[i]!;
    const o = open[i]!;
    const h = high[i]!;
    const l = low[i]!;
    const cl = close[i]!;
    const v = volume[i]!;
    if (!(t > prev)) invalid(`candles["${symbol}"][${i}]: candle times must be strictly ascending`);
    if (!(o > 0 && h > 0 && l > 0 && cl > 0 && o < Infinity && h < Infinity && l < Infinity && cl < Infinity))
      invalid(`candles["${symbol}"][${i}]: prices must be positive finite numbers`);
    if (!(v > -Infinity && v < Infinity)) invalid(`candles["${symbol}"][${i}]: volume must be a finite number`);
    prev = t;
  }
  return out;
}

function pack(symbol: string, input: readonly CandleInput[] | CandleColumns): WireCandles {
  if (!Array.isArray(input)) return checkColumns(symbol, input as CandleColumns);
  // Rows become columns, then get the same checks as columns. Only numbers pass: a string
  // such as "5" would become 5 in a Float64Array, so it is refused here first.
  const rows = input as readonly CandleInput[];
  const n = rows.length;
  const columns = {
    time: new Float64Array(n),
    open: new Float64Array(n),
    high: new Float64Array(n),
    low: new Float64Array(n),
    close: new Float64Array(n),
    volume: new Float64Array(n),
  };
  for (let i = 0; i < n; i++) {
    const where = `candles["${symbol}"][${i}]`;
    const r = rows[i]!;
    if (typeof r.open !== 'number' || typeof r.high !== 'number' || typeof r.low !== 'number' || typeof r.close !== 'number') {
      invalid(`${where}: prices must be positive finite numbers`);
    }
    if (typeof r.volume !== 'number') invalid(`${where}: volume must be a finite number`);
    columns.time[i] = toMs(r.time, where);
    columns.open[i] = r.open;
    columns.high[i] = r.high;
    columns.low[i] = r.low;
    columns.close[i] = r.close;
    columns.volume[i] = r.volume;
  }
  return checkColumns(symbol, columns);
}

function packFunding(symbol: string, input: FundingColumns): { time: Float64Array; rate: Float64Array } {
  if (input.time.length !== input.rate.length) invalid(`funding["${symbol}"]: time and rate must have the same length`);
  const out = { time: column(input.time), rate: column(input.rate) };
  let prev = -Infinity;
  for (let i = 0; i < out.time.length; i++) {
    if (!(out.time[i]! > prev)) invalid(`funding["${symbol}"][${i}]: funding times must be strictly ascending`);
    if (!(Math.abs(out.rate[i]!) <= 1)) invalid(`funding["${symbol}"][${i}]: a funding rate must be a number from -1 to 1`);
    prev = out.time[i]!;
  }
  return out;
}

function num(value: number | undefined, fallback: number, name: string, min: number, max: number): number {
  const v = value ?? fallback;
  if (typeof v !== 'number' || !(v >= min && v <= max)) invalid(`${name} must be a number from ${min} to ${max}`);
  return v;
}

/** Checks a job and puts it in the child's shape. Throws `SandboxError('INVALID_JOB')`. */
export function normalizeJob(job: BacktestJob): WireJob {
  if (typeof job.source !== 'string') invalid('source must be a string');
  const symbols = job.symbols ?? Object.keys(job.candles ?? {});
  if (symbols.length === 0 || symbols.length > 100) invalid('give candles for 1 to 100 symbols');
  if (new Set(symbols).size !== symbols.length) invalid('symbols must be unique');
  const candles = symbols.map((s) => {
    const input = job.candles?.[s];
    if (!input) invalid(`no candles for symbol ${s}`);
    return pack(s, input);
  });
  let first = Infinity;
  for (const c of candles) if (c.time.length > 0) first = Math.min(first, c.time[0]!);
  const startTime = job.startTime === undefined ? first : toMs(job.startTime, 'startTime');
  const history = candles.map((c) => {
    let h = 0;
    while (h < c.time.length && c.time[h]! < startTime) h++;
    return h;
  });
  const traded = candles.reduce((sum, c, i) => sum + c.time.length - history[i]!, 0);
  if (traded === 0) invalid('no candles at or after startTime');
  if (job.timeframe !== undefined && !Object.hasOwn(TIMEFRAME_MS, job.timeframe)) invalid(`timeframe must be one of ${Object.keys(TIMEFRAME_MS).join(', ')}`);
  const fees = job.fees ?? { maker: 0.0002, taker: 0.0005 };
  const marketType = job.marketType ?? 'LINEAR';
  if (marketType !== 'LINEAR' && marketType !== 'SPOT') invalid('marketType must be LINEAR or SPOT');
  const leverage = num(job.leverage, 1, 'leverage', 1, 125);
  if (marketType === 'SPOT' && leverage !== 1) invalid('SPOT backtests use leverage 1');
  return {
    source: job.source,
    symbols,
    candles,
    history,
    startTime,
    timeframe: job.timeframe ?? null,
    fees: { maker: num(fees.maker, 0, 'fees.maker', -0.01, 0.1), taker: num(fees.taker, 0, 'fees.taker', 0, 0.1) },
    leverage,
    slippage: num(job.slippage, 0, 'slippage', 0, 0.1),
    initialCapital: num(job.initialCapital, 10_000, 'initialCapital', 1e-9, 1e15),
    params: job.params ?? {},
    seed: num(job.seed, 1, 'seed', 0, 2 ** 32 - 1) >>> 0,
    marketType,
    maintenanceMarginRate: num(job.maintenanceMarginRate, 0.005, 'maintenanceMarginRate', 0, 0.5),
    funding: symbols.map((s) => {
      const f = job.funding?.[s];
      if (f === undefined) return null;
      if (marketType === 'SPOT') invalid('SPOT backtests have no funding');
      return packFunding(s, f);
    }),
    journal: job.journal === true,
  };
}

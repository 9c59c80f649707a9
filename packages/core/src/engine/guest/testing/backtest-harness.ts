import { EXIT_REASONS, STATE_FIELDS, TRADE_FIELDS } from '../../model/codes.js';
import { type BacktestRunConfig, createBacktestRun, type StrategyModule } from '../backtest-run.js';
import { createLogBuffer, type LogBuffer } from '../log-buffer.js';

/*
 * Test support: plays the host's part of a backtest around createBacktestRun, in the host
 * process, the way backtests/engine/run-in-guest.ts does around the sandbox: it lays candles out
 * in batches (six columns, one block of `n + 1` values per registered indicator series, then the
 * symbol indexes), answers indicator registrations with the block of the current batch, and
 * decodes the trades and account changes the run reports. Indicator values are made up by the
 * test, so that expectations never come from the code under test.
 */

export const MIN = 60_000;
export const BTC = 'BTC/USDT:USDT';
export const ETH = 'ETH/USDT:USDT';

export type Row = [open: number, high: number, low: number, close: number];

/** One candle as the host sends it; a `warmup` candle feeds indicators and fills but gets no onCandle. */
export interface Bar {
  s: number;
  time: number;
  open: number;
  high: number;
  low: number;
  close: number;
  volume: number;
  warmup?: boolean;
}

/** Candles of symbol `s`, candle i at minute i. */
export function bars(rows: Row[], s = 0): Bar[] {
  return rows.map(([open, high, low, close], i) => ({ s, time: i * MIN, open, high, low, close, volume: 1 }));
}

/** A flat candle at `price`. */
export const flat = (price: number): Row => [price, price, price, price];

/**
 * Made-up values of an indicator series for the whole run: one array per output, each of
 * `bars.length + 1` numbers, index 0 before the first candle and index g + 1 after candle g
 * (of the merged candles, as the host computes them).
 */
export type IndicatorValues = (kind: number, symbol: number, period: number, multiplier: number) => number[][];

export interface HarnessOptions {
  config?: Partial<BacktestRunConfig>;
  /** Batch sizes; the last one repeats. Default: every candle in one batch. */
  batches?: number[];
  indicators?: IndicatorValues;
  maxLogLines?: number;
  maxLogBytes?: number;
  random?: () => number;
  /** Writes to the run's log buffer before the run starts, as a module does while it loads. */
  beforeStart?: (logs: LogBuffer) => void;
}

export interface Trade {
  s: number;
  dir: number;
  entryTime: number;
  entryPrice: number;
  exitTime: number;
  exitPrice: number;
  quantity: number;
  pnl: number;
  fees: number;
  reason: string;
  funding: number;
}

/** An account change, by the index of its candle in the whole run (not in its batch). */
export interface StateRow {
  index: number;
  s: number;
  qty: number;
  entry: number;
  cash: number;
  realized: number;
}

export interface HarnessResult {
  trades: Trade[];
  /** Cash, then each symbol's final mark (starting capital plus its realized P&L). */
  final: number[];
  states: StateRow[];
  /** What each runBatch answered: 1 trades, 2 logs, 4 account changes. */
  flags: number[];
  /** Every indicator registration the run asked the host for: [kind, symbol, first argument, second argument or 0]. */
  registered: number[][];
  logs: LogBuffer;
  /** The order journal (order-journal.ts) read after `finish`, when the config keeps one; else null. */
  journal: { entries: Float64Array; tags: string[]; dropped: number } | null;
}

/** The configuration of a run over `candles` (of BTC, or BTC and ETH), with no fees, leverage 1, 10,000 of capital. */
export function configFor(candles: Bar[], over: Partial<BacktestRunConfig> = {}): BacktestRunConfig {
  const symbols = over.symbols ?? (candles.some((b) => b.s === 1) ? [BTC, ETH] : [BTC]);
  const last = (s: number) => candles.filter((b) => b.s === s).at(-1)!;
  return {
    symbols,
    timeframes: [{ name: '1m', ms: MIN }],
    params: {},
    initialCapital: 10_000,
    maker: 0,
    taker: 0,
    leverage: 1,
    slippage: 0,
    maintenanceMarginRate: 0.005,
    allowShort: true,
    liquidation: true,
    lastTimes: symbols.map((_, s) => last(s).time),
    lastCloses: symbols.map((_, s) => last(s).close),
    maxIndicators: 64,
    funding: symbols.map(() => null),
    ...over,
  };
}

/** Runs `strategy` over `candles` (already in time order), then finishes the run; throws what the run threw. */
export function runBacktest(candles: Bar[], strategy: StrategyModule, options: HarnessOptions = {}): HarnessResult {
  const cfg = configFor(candles, options.config);
  // The run's clock once it exists; 0 before (lines written by `beforeStart`).
  let clock = () => 0;
  const logs = createLogBuffer({ maxLines: options.maxLogLines ?? 1000, maxBytes: options.maxLogBytes ?? 100_000, scope: '', now: () => clock() });
  options.beforeStart?.(logs);
  const total = candles.length;
  const series: number[][][] = [];
  const registered: number[][] = [];
  let start = 0;
  let len = 0;
  const block = (values: number[][], from: number, n: number) => {
    const out = new Float64Array(values.length * (n + 1));
    values.forEach((v, o) => {
      if (v.length !== total + 1) throw new Error(`indicator values need ${total + 1} numbers, got ${v.length}`);
      for (let j = 0; j <= n; j++) out[o * (n + 1) + j] = v[from + j]!;
    });
    return out;
  };
  const register = (kind: number, s: number, _tf: number, a0: number, a1: number) => {
    const multiplier = Number.isNaN(a1) ? 0 : a1;
    registered.push([kind, s, a0, multiplier]);
    if (!options.indicators) throw new Error('this test registers no indicators');
    const values = options.indicators(kind, s, a0, multiplier);
    series.push(values);
    return block(values, start, len).buffer;
  };
  const history = () => {
    throw new Error('this test reads no history');
  };
  const run = createBacktestRun(cfg, strategy, { register, history }, { logs, random: options.random ?? (() => 0.25), startTime: candles[0]!.time });
  clock = run.now;

  const trades: Trade[] = [];
  const states: StateRow[] = [];
  const flags: number[] = [];
  const readTrades = () => {
    const flat = new Float64Array(run.drainTrades());
    for (let b = 0; b < flat.length; b += TRADE_FIELDS) {
      trades.push({
        s: flat[b]!,
        dir: flat[b + 1]!,
        entryTime: flat[b + 2]!,
        entryPrice: flat[b + 3]!,
        exitTime: flat[b + 4]!,
        exitPrice: flat[b + 5]!,
        quantity: flat[b + 6]!,
        pnl: flat[b + 7]!,
        fees: flat[b + 8]!,
        reason: EXIT_REASONS[flat[b + 9]!]!,
        funding: flat[b + 10]!,
      });
    }
  };
  const sizes = options.batches ?? [total];
  for (let k = 0; start < total; k++) {
    const n = Math.min(sizes[Math.min(k, sizes.length - 1)]!, total - start);
    len = n;
    const blocks = series.map((v) => block(v, start, n));
    const width = n * 7 + blocks.reduce((w, b) => w + b.length, 0);
    const buf = new Float64Array(width);
    for (let i = 0; i < n; i++) {
      const c = candles[start + i]!;
      buf[i] = c.time;
      buf[n + i] = c.open;
      buf[2 * n + i] = c.high;
      buf[3 * n + i] = c.low;
      buf[4 * n + i] = c.close;
      buf[5 * n + i] = c.volume;
    }
    let base = n * 6;
    for (const b of blocks) {
      buf.set(b, base);
      base += b.length;
    }
    const sym = new Int32Array(buf.buffer, base * 8, n);
    for (let i = 0; i < n; i++) {
      const c = candles[start + i]!;
      sym[i] = c.warmup ? -1 - c.s : c.s;
    }
    const f = run.runBatch(buf.buffer, n);
    flags.push(f);
    if (f & 4) {
      const st = new Float64Array(run.drainStates());
      for (let b = 0; b < st.length; b += STATE_FIELDS) {
        states.push({ index: start + st[b]!, s: st[b + 1]!, qty: st[b + 2]!, entry: st[b + 3]!, cash: st[b + 4]!, realized: st[b + 5]! });
      }
    }
    if (f & 1) readTrades();
    start += n;
  }
  const final = Array.from(new Float64Array(run.finish()));
  readTrades();
  const entries = run.drainJournal();
  const journal = entries === null ? null : { entries: new Float64Array(entries), ...(JSON.parse(run.journalInfo()!) as { tags: string[]; dropped: number }) };
  return { trades, final, states, flags, registered, logs, journal };
}

/** A strategy that calls `steps[i]` at its i-th onCandle (0-based), then `after` at every onCandle; `onOrder` when given. */
export function scripted(
  steps: Record<number, (ctx: any, candle: any) => void>,
  hooks: { onOrder?: (ctx: any, event: any) => void; after?: (ctx: any, candle: any) => void } = {},
): StrategyModule {
  let i = 0;
  return {
    onCandle(ctx: any, candle: any) {
      steps[i]?.(ctx, candle);
      hooks.after?.(ctx, candle);
      i++;
    },
    ...(hooks.onOrder ? { onOrder: hooks.onOrder } : {}),
  };
}

/** Runs `fn` and answers the message of what it threw (the test fails if it did not throw). */
export function thrown(fn: () => unknown): { name: string; message: string } {
  try {
    fn();
  } catch (e) {
    return { name: (e as Error).name, message: (e as Error).message };
  }
  throw new Error('expected a throw');
}

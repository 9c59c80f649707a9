/*
 * The trusted runtime of a backtest, evaluated inside every QuickJS context before the
 * strategy (bundled at build time into one script: engine/guest-script.ts). It replaces the
 * clock and `Math.random`, builds `ctx`, and drives the whole candle loop inside the guest, so
 * the host crosses into the guest once per batch of candles, never once per candle.
 *
 * Numbers travel in and out as Float64Arrays:
 * - batch in: six columns of `n` values (time, open, high, low, close, volume), then one block
 *   of `n + 1` values per registered indicator series (index 0 is the value before the batch),
 *   then `n` symbol indexes as 32-bit integers (`-(s + 1)` for a warm-up candle: no onCandle).
 * - account changes out: `STATE_FIELDS` numbers per candle whose fills changed the account.
 *   The host marks equity at every close from these.
 * - trades out: `TRADE_FIELDS` numbers per closed trade.
 */
import { createBacktestAccount } from './backtest-account.js';
import { createBacktestCtx } from './backtest-ctx.js';
import { createBacktestIndicators, type HostRegister } from './backtest-indicators.js';
import { createBacktestOrders } from './backtest-orders.js';
import { createRandom, installDeterminism } from './determinism.js';
import { createErrorRecorder, readExports, readMeta } from './errors.js';
import { F64, freeze, jsonParse } from './intrinsics.js';
import { createLogBuffer } from './log-buffer.js';
import { createOrderEventQueue } from './order-events.js';

/** What the host sends with `start`. */
interface RunConfig {
  symbols: string[];
  params: unknown;
  initialCapital: number;
  maker: number;
  taker: number;
  leverage: number;
  slippage: number;
  maintenanceMarginRate: number;
  allowShort: boolean;
  liquidation: boolean;
  lastTimes: number[];
  lastCloses: number[];
  maxIndicators: number;
  funding: Array<{ time: number[]; rate: number[] } | null>;
}

type StrategyModule = { onCandle?: unknown; onOrder?: unknown } & Record<string, unknown>;
type Run = { runBatch(buf: ArrayBuffer, n: number): number; drainStates(): ArrayBuffer; drainTrades(): ArrayBuffer; finish(): ArrayBuffer | null };

/** Creates the runtime; `bootJson` holds the seed, the start time and the log limits. */
export function createRuntime(bootJson: string) {
  const boot = jsonParse(bootJson) as { seed: number; startTime: number; maxLogLines: number; maxLogBytes: number };
  /** The guest's clock: the time of the candle being processed. */
  let now = boot.startTime;
  const clock = () => now;
  const random = createRandom(boot.seed);
  installDeterminism(random, clock);
  const logs = createLogBuffer({ maxLines: boot.maxLogLines, maxBytes: boot.maxLogBytes, scope: '', now: clock });
  const errors = createErrorRecorder(logs);
  let run: Run | null = null;

  function start(ns: StrategyModule, hostRegister: HostRegister, runJson: string): boolean {
    const cfg = jsonParse(runJson) as RunConfig;
    const onCandle = ns.onCandle as (ctx: unknown, candle: unknown) => void;
    const onOrder = ns.onOrder as ((ctx: unknown, event: unknown) => void) | undefined;
    if (typeof onCandle !== 'function') throw new TypeError('The strategy must export a function onCandle(ctx, candle)');
    if (onOrder !== undefined && typeof onOrder !== 'function') throw new TypeError('onOrder, when exported, must be a function');
    const nSym = cfg.symbols.length;
    const events = createOrderEventQueue(typeof onOrder === 'function', clock);
    const book = createBacktestAccount(cfg, events, clock);
    const orders = createBacktestOrders(cfg, book, events, clock);
    const reader = createBacktestIndicators(cfg.symbols, hostRegister, cfg.maxIndicators);
    const ctx = createBacktestCtx({ symbols: cfg.symbols, params: cfg.params, book, orders, reader, log: logs.log, random, now: clock });
    const candles: Array<{ symbol: string; time: number; open: number; high: number; low: number; close: number; volume: number }> = [];
    for (let s = 0; s < nSym; s++) candles.push({ symbol: cfg.symbols[s]!, time: 0, open: 0, high: 0, low: 0, close: 0, volume: 0 });
    const { pendingCount, processBar } = orders;
    const { exBelow, exAbove, nextFunding, lastPrice } = book;
    const cursor = reader.cursor;
    const queued = events.list;
    const deliver = (event: unknown) => {
      onOrder!(ctx, event);
      if (logs.hit) throw new Error('Log limit reached');
    };

    /* The candle loop: one call per batch. Answers flags (1 trades, 2 logs, 4 account changes), or -1 after an error. */
    function runBatch(buf: ArrayBuffer, n: number): number {
      try {
        const Tm = new F64(buf, 0, n);
        const Op = new F64(buf, n * 8, n);
        const Hi = new F64(buf, n * 16, n);
        const Lo = new F64(buf, n * 24, n);
        const Cl = new F64(buf, n * 32, n);
        const Vo = new F64(buf, n * 40, n);
        const Sy = new Int32Array(buf, reader.setBatch(buf, n) * 8, n);
        for (let i = 0; i < n; i++) {
          const t = Tm[i]!;
          let s = Sy[i]!;
          const call = s >= 0;
          if (!call) s = -1 - s;
          now = t;
          if (pendingCount[s] !== 0 || Lo[i]! <= exBelow[s]! || Hi[i]! >= exAbove[s]! || t >= nextFunding[s]!) {
            cursor[0] = i;
            if (t >= nextFunding[s]!) book.fund(s, t, Op[i]!);
            processBar(s, t, Op[i]!, Hi[i]!, Lo[i]!);
            book.recordState(i, s);
            if (queued.length !== 0) events.flush(deliver);
          }
          lastPrice[s] = Cl[i]!;
          if (call) {
            const cd = candles[s]!;
            cd.time = t;
            cd.open = Op[i]!;
            cd.high = Hi[i]!;
            cd.low = Lo[i]!;
            cd.close = Cl[i]!;
            cd.volume = Vo[i]!;
            cursor[0] = i + 1;
            onCandle(ctx, cd);
            if (logs.hit) throw new Error('Log limit reached');
            if (queued.length !== 0) events.flush(deliver);
          }
        }
        return (book.tradeCount > 0 ? 1 : 0) | (logs.hasLines() ? 2 : 0) | (book.stateCount > 0 ? 4 : 0);
      } catch (e) {
        errors.describe(e);
        return -1;
      }
    }

    /* Closes what is still open at each symbol's last close (taker fee), drops pending orders. */
    function finish(): ArrayBuffer | null {
      try {
        for (let s = 0; s < nSym; s++) {
          now = cfg.lastTimes[s]!;
          book.closeAtEnd(s, cfg.lastCloses[s]!, cfg.lastTimes[s]!);
        }
        orders.clear();
        queued.length = 0;
        return book.final();
      } catch (e) {
        errors.describe(e);
        return null;
      }
    }

    run = { runBatch, drainStates: book.drainStates, drainTrades: book.drainTrades, finish };
    return true;
  }

  return freeze({
    readMeta,
    readExports,
    start,
    runBatch: (buf: ArrayBuffer, n: number) => run!.runBatch(buf, n),
    drainStates: () => run!.drainStates(),
    drainTrades: () => run!.drainTrades(),
    drainLogs: () => logs.drain(),
    finish: () => run!.finish(),
    lastError: errors.lastError,
    describe: (e: unknown) => {
      errors.describe(e);
      return errors.lastError();
    },
  });
}

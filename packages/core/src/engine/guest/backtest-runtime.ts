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
import { createBacktestLoop, type HostRegister } from './backtest-loop.js';
import { createBacktestOrders } from './backtest-orders.js';
import { createRandom, installDeterminism } from './determinism.js';
import { createErrorRecorder, readExports, readMeta } from './errors.js';
import { freeze, jsonParse } from './intrinsics.js';
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
  /** Where the time comes from: the start time until a run starts, then the candle loop's clock. */
  let timeSource = () => boot.startTime;
  const clock = () => timeSource();
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
    const loop = createBacktestLoop(cfg.symbols, hostRegister, cfg.maxIndicators, boot.startTime, { book, orders, events, logs, onCandle, onOrder });
    timeSource = loop.now;
    loop.setCtx(createBacktestCtx({ symbols: cfg.symbols, params: cfg.params, book, orders, loop, log: logs.log, random, now: clock }));

    function runBatch(buf: ArrayBuffer, n: number): number {
      try {
        return loop.runBatch(buf, n);
      } catch (e) {
        errors.describe(e);
        return -1;
      }
    }

    /* Closes what is still open at each symbol's last close (taker fee), drops pending orders. */
    function finish(): ArrayBuffer | null {
      try {
        for (let s = 0; s < nSym; s++) {
          loop.setNow(cfg.lastTimes[s]!);
          book.closeAtEnd(s, cfg.lastCloses[s]!, cfg.lastTimes[s]!);
        }
        orders.clear();
        events.list.length = 0;
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

import { type StrategyModule, strategyHandlers } from './strategy-module.js';
import { createBacktestAccount } from './backtest-account.js';
import { createBacktestCtx } from './backtest-ctx.js';
import { type BacktestHostHistory, createBacktestLoop, type HostRegister } from './backtest-loop.js';
import { createBacktestOrders } from './backtest-orders.js';
import type { LogBuffer } from './log-buffer.js';
import { createOrderEventQueue } from './order-events.js';
import { createOrderJournal } from './order-journal.js';

/** What the host sends with `start`: the run's symbols, parameters, money and model settings. */
export interface BacktestRunConfig {
  symbols: string[];
  /** The run's timeframe, then `meta.timeframes` (for `ctx.history` and indicators). */
  timeframes: Array<{ name: string; ms: number }>;
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
  /** Keep the order journal (order-journal.ts). Default false. */
  journal?: boolean;
  /** Most orders the journal keeps (default `MAX_JOURNAL_ORDERS`). */
  maxJournalOrders?: number;
}

export type { StrategyModule } from './strategy-module.js';

/** One backtest inside the guest: batches in, account changes, trades and the final marks out. */
export interface BacktestRun {
  /** Runs a batch (see backtest-runtime.ts); answers flags: 1 trades, 2 logs, 4 account changes. Throws what the strategy threw. */
  runBatch(buf: ArrayBuffer, n: number): number;
  drainStates(): ArrayBuffer;
  drainTrades(): ArrayBuffer;
  /** The order journal's entries (order-journal.ts), or null without `cfg.journal`. Read after `finish`. */
  drainJournal(): ArrayBuffer | null;
  /** JSON `{ tags, dropped }` of the journal, or null without one. */
  journalInfo(): string | null;
  /** Closes what is still open at each symbol's last close (taker fee), drops pending orders; answers cash, then each symbol's final mark. */
  finish(): ArrayBuffer;
  /** The time of the candle being processed. */
  now(): number;
}

/**
 * Builds a backtest from the strategy's module: its account, orders, candle loop and `ctx`.
 * Plain code over plain data: the guest runtime calls it inside QuickJS, and tests call it in
 * the host directly.
 */
export function createBacktestRun(
  cfg: BacktestRunConfig,
  ns: StrategyModule,
  host: { register: HostRegister; history: BacktestHostHistory },
  env: { logs: LogBuffer; random: () => number; startTime: number },
): BacktestRun {
  const { onCandle, onOrder } = strategyHandlers(ns);
  const nSym = cfg.symbols.length;
  const { logs } = env;
  const loop = createBacktestLoop(cfg.symbols, host, cfg.maxIndicators, env.startTime, cfg.timeframes);
  const clock = loop.now;
  const events = createOrderEventQueue(typeof onOrder === 'function', clock, loop.attend);
  const journal = cfg.journal === true ? createOrderJournal(cfg.maxJournalOrders) : null;
  const book = createBacktestAccount(cfg, events, clock, journal);
  const orders = createBacktestOrders(cfg, book, events, clock, journal);
  loop.attach({ book, orders, events, logs, onCandle, onOrder, journal });
  loop.setCtx(createBacktestCtx({ symbols: cfg.symbols, params: cfg.params, book, orders, loop, log: logs.log, random: env.random, now: loop.now }));
  return {
    runBatch: loop.runBatch,
    drainStates: book.drainStates,
    drainTrades: book.drainTrades,
    drainJournal: () => (journal === null ? null : journal.drain()),
    journalInfo: () => (journal === null ? null : journal.info()),
    now: loop.now,
    finish() {
      for (let s = 0; s < nSym; s++) {
        loop.setNow(cfg.lastTimes[s]!);
        book.closeAtEnd(s, cfg.lastCloses[s]!, cfg.lastTimes[s]!);
      }
      orders.clear();
      events.list.length = 0;
      return book.final();
    },
  };
}

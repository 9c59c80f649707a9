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
 * - the order journal out, when the run keeps one: `JOURNAL_FIELDS` numbers per order, once
 *   after `finish`, and its tags as JSON (order-journal.ts).
 */
import type { BacktestHostHistory, HostRegister } from './backtest-loop.js';
import { type BacktestRun, type BacktestRunConfig, createBacktestRun, type StrategyModule } from './backtest-run.js';
import { readExports, readMeta } from './errors.js';
import { createGuestBase } from './guest-base.js';
import { freeze, jsonParse } from './intrinsics.js';

/** Creates the runtime; `bootJson` holds the seed, the start time and the log limits. */
export function createRuntime(bootJson: string) {
  // The log limit applies to the whole run.
  const { boot, random, logs, errorApi, setTimeSource, guarded } = createGuestBase(bootJson, '');
  let run: BacktestRun | null = null;

  function start(ns: StrategyModule, hostRegister: HostRegister, hostHistory: BacktestHostHistory, runJson: string): boolean {
    const cfg = jsonParse(runJson) as BacktestRunConfig;
    run = createBacktestRun(cfg, ns, { register: hostRegister, history: hostHistory }, { logs, random, startTime: boot.startTime });
    setTimeSource(run.now);
    return true;
  }

  return freeze({
    readMeta,
    readExports,
    start,
    runBatch: guarded((buf: ArrayBuffer, n: number) => run!.runBatch(buf, n), -1),
    drainStates: () => run!.drainStates(),
    drainTrades: () => run!.drainTrades(),
    drainJournal: () => run!.drainJournal(),
    journalInfo: () => run!.journalInfo(),
    drainLogs: () => logs.drain(),
    finish: guarded(() => run!.finish(), null),
    ...errorApi,
  });
}

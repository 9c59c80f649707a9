import type { z } from 'zod';
import type { EquityPoint, Trade } from '@stratbox/contract';
import { EXIT_REASONS, TRADE_FIELDS } from '../../engine/model/codes.js';
import type { QuickJSBuild } from '../../sandbox/quickjs-variants.js';
import type { ParamValue, StrategyMeta } from '../../sandbox/strategy-meta.js';
import type { BacktestMetrics } from './metrics.js';
import type { WireJob } from './backtest-job.js';
import { iso } from './iso-time.js';
import type { ReplayOrder } from '../../drift/drift-types.js';
import { journalOrders } from './journal-orders.js';
import type { RunOutput } from './run-in-guest.js';

export type BacktestEquityPoint = z.infer<typeof EquityPoint>;
export type BacktestTrade = z.infer<typeof Trade>;

/** A log line of a run, as the API shows deployment logs. `time` is the candle time. */
export interface BacktestLogLine {
  time: string;
  level: 'debug' | 'info' | 'warn' | 'error';
  message: string;
}

/** What a completed backtest produced. `equityCurve`, `trades` and `metrics` are the contract's shapes. */
export interface BacktestResult {
  /**
   * Equity marked to market at every candle close (one point per distinct candle time), in the
   * contract's shape. Built on first access (a million points take about a second of host CPU),
   * so a caller that stores `series` instead never pays for it.
   */
  readonly equityCurve: BacktestEquityPoint[];
  /** The same curve as columns: candle times (ms) and equity. Cheap to keep, downsample or encode. */
  series: { times: Float64Array; equity: Float64Array };
  trades: BacktestTrade[];
  metrics: BacktestMetrics;
  logs: BacktestLogLine[];
  /** The strategy's validated `meta`, and the parameters the run used (parsed, defaults filled in). */
  meta: StrategyMeta;
  params: Record<string, ParamValue>;
  /**
   * Present only when the job asked for it (`journal: true`): every order the strategy placed
   * and every close the engine made, in placement order, with its outcome (docs/engine.md).
   */
  journal?: ReplayOrder[];
  /** With `journal`: true when the run placed more orders than the journal keeps (the first ones are listed). */
  journalTruncated?: boolean;
  stats: {
    /** Candles processed. */
    bars: number;
    /** CPU time of the child process for this job: what `compute` usage counts. */
    cpuMs: number;
    wallMs: number;
    /** Peak resident memory of the child process so far. */
    peakRssBytes: number;
    build: QuickJSBuild;
  };
}

/** Turns the child's compact output for `job` into contract shapes (ISO times, named sides and reasons). */
export function buildBacktestResult(output: RunOutput, job: WireJob, extra: { wallMs: number; peakRssBytes: number; build: QuickJSBuild }): BacktestResult {
  const { equity, trades, symbols } = output;
  const equityTimes = output.equityTimes ?? job.candles[0]!.time.slice(job.history[0]);
  let curve: BacktestEquityPoint[] | null = null;
  const buildCurve = () => {
    const points: BacktestEquityPoint[] = new Array(equity.length);
    for (let i = 0; i < equity.length; i++) points[i] = { time: iso(equityTimes[i]!), equity: equity[i]! };
    return points;
  };
  const count = trades.length / TRADE_FIELDS;
  const list: BacktestTrade[] = new Array(count);
  for (let k = 0; k < count; k++) {
    const b = k * TRADE_FIELDS;
    list[k] = {
      symbol: symbols[trades[b]!]!,
      side: trades[b + 1]! > 0 ? 'long' : 'short',
      entryTime: iso(trades[b + 2]!),
      entryPrice: trades[b + 3]!,
      exitTime: iso(trades[b + 4]!),
      exitPrice: trades[b + 5]!,
      quantity: trades[b + 6]!,
      pnl: trades[b + 7]!,
      fees: trades[b + 8]!,
      funding: trades[b + 10]!,
      exitReason: EXIT_REASONS[trades[b + 9]!] ?? 'market',
    };
  }
  return {
    get equityCurve() {
      curve ??= buildCurve();
      return curve;
    },
    series: { times: equityTimes, equity },
    trades: list,
    metrics: output.metrics,
    logs: output.logs.map((l) => ({ time: iso(l.time), level: l.level ?? 'info', message: l.message })),
    meta: output.meta,
    params: output.params,
    ...(output.journal === undefined ? {} : { journal: journalOrders(output.journal, symbols), journalTruncated: output.journal.dropped > 0 }),
    stats: { bars: output.bars, cpuMs: output.cpuMs, wallMs: extra.wallMs, peakRssBytes: extra.peakRssBytes, build: extra.build },
  };
}

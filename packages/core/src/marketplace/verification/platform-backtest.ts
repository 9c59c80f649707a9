import { saveRecord } from './save-record.js';
import { runRecordIdentity } from './record-run.js';
import { isStratboxError } from '../../errors/stratbox-error.js';
import { downsampleEquity } from '../../backtests/equity-downsample.js';
import { loadBacktestCandles } from '../../backtests/load-backtest-candles.js';
import { loadBacktestFunding } from '../../backtests/load-backtest-funding.js';
import { cpuMsOf } from '../../runs/run-errors.js';
import { dayOf } from '../../market-data/candle-series.js';
import type { Clock } from '../../ports/clock.js';
import type { Logger } from '../../ports/logger.js';
import { TIMEFRAME_MS, type MarketData, type TimeframeName } from '../../ports/market-data.js';
import type { Store } from '../../ports/store.js';
import type { VerificationRecordRow } from '../../ports/store-verification.js';
import type { BacktestRunOutput, StrategyRunner } from '../../ports/strategy-runner.js';
import { loadRecordStrategy, recordError } from './record-strategy.js';
import { recordMetrics, runFigures } from './record-metrics.js';
import { nextUpdatedAt } from './record-views.js';
import type { VerificationSettings } from './verification-settings.js';

const DAY_MS = 86_400_000;

/** Most points a record's equity (either segment) shows. */
export const RECORD_EQUITY_POINTS = 1_000;

export interface VerificationDeps {
  store: Store;
  clock: Clock;
  logger: Logger;
  strategyRunner: StrategyRunner;
  marketData: MarketData;
  settings: VerificationSettings;
  /** Aborts the platform's runs (the loop's close). */
  signal?: AbortSignal;
}

/** The platform backtest's window: `days` whole UTC days ending the day before `listedAt`. */
export function backtestWindow(listedAt: string, days: number): { startDate: string; endDate: string } {
  const endMs = Date.parse(`${dayOf(Date.parse(listedAt))}T00:00:00.000Z`) - DAY_MS;
  return { startDate: dayOf(endMs - (Math.round(days) - 1) * DAY_MS), endDate: dayOf(endMs) };
}

/** Windows tried, longest first, when the data does not reach back as far: the setting, then 1 year, 6 months, 3 months, 1 month. */
function windowsToTry(days: number): number[] {
  return [days, ...[365, 180, 90, 30].filter((d) => d < days)];
}

const SHORTER_HELPS = new Set(['NOT_FOUND', 'DATA_NOT_FOUND', 'WARMUP_DATA_MISSING']);

/** What a platform backtest ran and answered, before it is written to the record. */
export interface PlatformBacktestRun {
  startDate: string;
  endDate: string;
  output: BacktestRunOutput;
}

/**
 * Runs the record's platform backtest as a user's backtest of the same version, symbols, window,
 * timeframe, fees, slippage, capital, parameters and funding runs (`createBacktestWorker`): the
 * same candle and funding loaders, the same seed, the same runner; so its metrics are those of
 * such a backtest. The window is the setting's (2 years ending the day before listing), or the
 * longest shorter one the data has. Runs under the platform's sandbox tenant.
 */
export async function runRecordBacktest(deps: Omit<VerificationDeps, 'clock'>, record: VerificationRecordRow): Promise<PlatformBacktestRun> {
  const { marketData, settings } = deps;
  const { identity } = record;
  const { source, declaration } = await loadRecordStrategy(deps.store, deps.strategyRunner, record, settings.tenant);
  let lastError: unknown = null;
  for (const days of windowsToTry(settings.backtestDays)) {
    const { startDate, endDate } = backtestWindow(record.forward.start, days);
    let loaded: Awaited<ReturnType<typeof loadBacktestCandles>>;
    try {
      loaded = await loadBacktestCandles(marketData, {
        symbols: identity.symbols,
        timeframe: identity.timeframe as TimeframeName,
        startDate,
        endDate,
        warmup: declaration.warmup ?? 0,
      });
      if (loaded.series.every((s) => s.length === 0 || s.time[s.length - 1]! < loaded.startTime)) {
        throw Object.assign(new Error('No candles in the window'), { code: 'DATA_NOT_FOUND' });
      }
    } catch (error) {
      const code = isStratboxError(error) ? error.code : (error as { code?: string }).code;
      if (code && SHORTER_HELPS.has(code)) {
        lastError = error;
        continue;
      }
      throw error;
    }
    const funding =
      identity.funding && identity.marketType === 'LINEAR' ? await loadBacktestFunding(marketData, { symbols: identity.symbols, startDate, endDate }) : null;
    const output = await runRecordIdentity(deps, record, {
      source,
      series: loaded.series,
      startTime: loaded.startTime,
      seedWindow: { startDate, endDate },
      funding: funding && funding.source !== null ? funding.funding : undefined,
    });
    return { startDate, endDate, output };
  }
  throw lastError;
}

/** The record's `backtest` segment from a platform run. */
export function backtestSegment(record: VerificationRecordRow, run: PlatformBacktestRun): NonNullable<VerificationRecordRow['backtest']> {
  const curve = run.output.equityCurve;
  const times = new Float64Array(curve.length);
  const equity = new Float64Array(curve.length);
  curve.forEach((p, i) => {
    times[i] = Date.parse(p.time);
    equity[i] = p.equity;
  });
  const metrics = recordMetrics(
    runFigures(run.output.metrics),
    { times, equity, initial: record.identity.initialCapital, timeframeMs: TIMEFRAME_MS[record.identity.timeframe as TimeframeName] },
    record.searchEffort.total,
  );
  return {
    start: `${run.startDate}T00:00:00.000Z`,
    end: `${run.endDate}T23:59:59.999Z`,
    metrics,
    equity: downsampleEquity(times, equity, RECORD_EQUITY_POINTS),
  };
}

/**
 * Runs a pending record's platform backtest and writes it (`ready`), or why it could not run
 * (`failed`, with an error that never quotes the source), with a compare-and-set: of two nodes
 * running it, one writes. The CPU time is the platform's: logged with the record's id, never
 * charged to the seller's plan. Keeps the listing's summary in sync. Answers the record after,
 * or null when it was not pending or another node wrote first.
 */
export async function runPlatformBacktest(deps: VerificationDeps, record: VerificationRecordRow): Promise<VerificationRecordRow | null> {
  if (record.status !== 'pending') return null;
  const { store, clock, logger } = deps;
  let patch: Parameters<Store['verificationRecords']['update']>[2];
  let computeMs = 0;
  try {
    const run = await runRecordBacktest(deps, record);
    computeMs = run.output.computeMs;
    patch = { status: 'ready', error: null, backtest: backtestSegment(record, run) };
  } catch (error) {
    if (deps.signal?.aborted) return null;
    computeMs = cpuMsOf(error);
    const failure = recordError(error);
    if (failure.code === 'INTERNAL') logger.error('Verification backtest failed', { recordId: record.id, error: String(error) });
    patch = { status: 'failed', error: failure };
  }
  logger.info('Verification compute (platform)', {
    recordId: record.id,
    listingId: record.listingId,
    segment: 'backtest',
    computeMs,
    tenant: deps.settings.tenant,
  });
  return saveRecord(store, record, { ...patch, updatedAt: nextUpdatedAt(record.updatedAt, clock.now()) });
}

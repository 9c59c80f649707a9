import type { DriftReport, DriftThresholds } from '@stratbox/contract';
import { StratboxError, notFound } from '../errors/stratbox-error.js';
import { marketTypeOfSymbols } from '../exchanges/market-symbol.js';
import { loadBacktestFunding } from '../backtests/load-backtest-funding.js';
import { loadRunnableSource } from '../marketplace/licences.js';
import { dayOf } from '../market-data/candle-series.js';
import type { Clock } from '../ports/clock.js';
import type { Logger } from '../ports/logger.js';
import { TIMEFRAME_MS, type MarketData, type TimeframeName } from '../ports/market-data.js';
import type { DeploymentRecord, Store } from '../ports/store.js';
import type { StrategyDeclaration, StrategyRunner } from '../ports/strategy-runner.js';
import { computeDrift } from './compute-drift.js';
import { deploymentSeed } from './deployment-seed.js';
import { recordDriftAlert } from './drift-alert-event.js';
import type { DriftSettings } from './drift-settings.js';
import { DEFAULT_DRIFT_THRESHOLDS, type DriftInput } from './drift-types.js';
import { resolveDriftWindow } from './drift-window.js';
import { listAllOrders, liveFillsOf } from './live-fills.js';
import { runReplay, type ReplayMetering } from './replay-run.js';
import { loadReplaySeries } from './replay-series.js';

export interface DriftServiceDeps {
  store: Store;
  clock: Clock;
  logger: Logger;
  strategyRunner: StrategyRunner;
  marketData: MarketData;
  /** The user's compute: checked before a replay, charged after it (billing's usage service). */
  metering: ReplayMetering;
  settings: DriftSettings;
  /** Aborts replays in flight (the service is closing). */
  signal?: AbortSignal;
}

export interface DriftQueryInput {
  from?: string | undefined;
  to?: string | undefined;
}

export type DriftService = ReturnType<typeof createDriftService>;

/** How many strategy sources' declarations a drift service keeps. */
const DECLARATIONS_KEPT = 64;

const sameThresholds = (a: DriftThresholds, b: DriftThresholds) =>
  a.minCorrelation === b.minCorrelation && a.maxDtw === b.maxDtw && a.maxSlippageRatio === b.maxSlippageRatio && a.parityMiss === b.parityMiss;

/**
 * Drift reports (docs/drift.md): a deployment against a backtest of the same strategy version
 * and parameters replayed over the candles it was given, compared by `computeDrift`.
 *
 * - Scoped to the deployment's owner: another user's deployment is a 404. A bought strategy's
 *   source is loaded here, run in the sandbox and never returned; the replay's strategy log is
 *   not kept (the report has no place for it).
 * - The replay runs as the owner's run (`tenant`), metered as their compute like a backtest;
 *   with no compute left it is a 402 PLAN_LIMIT_EXCEEDED.
 * - Stored per (deployment, window): asked again with no candle recorded since, the stored report
 *   is answered as it was (same `computedAt`). Otherwise the whole window is replayed again: a
 *   backtest cannot resume from a saved state yet, so a daily refresh of a long deployment costs a
 *   backtest of its whole span, not of the new day.
 * - A computed report that crosses the deployment's thresholds writes a `deployment.drift` event
 *   in the transaction that stores it (once per window end day and set of metrics).
 */
export function createDriftService(deps: DriftServiceDeps) {
  const { store, clock, logger, settings } = deps;
  /** Reports being computed, by deployment and window key: a second request waits for the first. */
  const inFlight = new Map<string, Promise<DriftReport>>();
  /**
   * What each recently replayed source declares (timeframe, warm-up), by source text: inspecting
   * is a round trip to a sandbox child, and a source always declares the same (it is evaluated
   * without anything that varies), so a report asked again or refreshed skips it. Oldest out first.
   */
  const declarations = new Map<string, StrategyDeclaration>();

  async function declarationOf(source: string, userId: string): Promise<StrategyDeclaration> {
    const known = declarations.get(source);
    if (known) return known;
    const declaration = await deps.strategyRunner.inspect(source, { tenant: userId });
    if (declarations.size >= DECLARATIONS_KEPT) declarations.delete(declarations.keys().next().value!);
    declarations.set(source, declaration);
    return declaration;
  }

  async function ownDeployment(userId: string, deploymentId: string): Promise<DeploymentRecord> {
    const deployment = await store.deployments.findById(userId, deploymentId);
    if (!deployment) throw notFound('Deployment', deploymentId);
    return deployment;
  }

  async function thresholdsOf(deploymentId: string): Promise<DriftThresholds> {
    return (await store.driftReports.findThresholds(deploymentId)) ?? { ...DEFAULT_DRIFT_THRESHOLDS };
  }

  async function report(deployment: DeploymentRecord, query: DriftQueryInput): Promise<DriftReport> {
    const span = await store.deploymentRecordings.span(deployment.id);
    if (!span) throw new StratboxError('CONFLICT', `Deployment ${deployment.id} has not processed a candle yet: there is nothing to compare`);
    const key = `${query.from ?? ''}|${query.to ?? ''}`;
    const thresholds = await thresholdsOf(deployment.id);
    const stored = await store.driftReports.find(deployment.id, key);
    const coversAll = stored !== null && (stored.recordedUpTo === span.last || (query.to !== undefined && stored.recordedUpTo >= Date.parse(query.to)));
    if (stored && coversAll && stored.report.strategyVersion === deployment.strategyVersion && sameThresholds(stored.report.alerts.thresholds, thresholds)) {
      return stored.report;
    }
    const flightKey = `${deployment.id}|${key}`;
    let running = inFlight.get(flightKey);
    if (!running) {
      running = compute(deployment, query, key, span, thresholds).finally(() => inFlight.delete(flightKey));
      inFlight.set(flightKey, running);
    }
    return running;
  }

  async function compute(
    deployment: DeploymentRecord,
    query: DriftQueryInput,
    key: string,
    span: { first: number; last: number },
    thresholds: DriftThresholds,
  ): Promise<DriftReport> {
    const userId = deployment.userId;
    const version = await loadRunnableSource(store, userId, deployment.strategyId, deployment.strategyVersion).catch(() => {
      throw new StratboxError('CONFLICT', `Strategy version ${deployment.strategyVersion} of deployment ${deployment.id} can no longer be run`);
    });
    const ownsSource = version.userId === userId;
    const declaration = await declarationOf(version.source, userId);
    const timeframe = (declaration.timeframe ?? '1h') as TimeframeName;
    const stepMs = TIMEFRAME_MS[timeframe];
    const window = resolveDriftWindow(query, span, stepMs);

    const recordings = store.deploymentRecordings;
    const [candles, intents, runs] = await Promise.all([
      recordings.listCandles(deployment.id, window.from, window.to),
      recordings.listIntents(deployment.id, window.from, window.to),
      recordings.listRuns(deployment.id),
    ]);
    if (candles.length === 0) throw new StratboxError('CONFLICT', `Deployment ${deployment.id} processed no candle in the window`);

    const nowMs = clock.now().getTime();
    const replaySeries = await loadReplaySeries(deps.marketData, {
      symbols: deployment.symbols,
      timeframe,
      window,
      recorded: candles,
      warmup: declaration.warmup ?? 0,
      nowMs,
    });
    const marketType = marketTypeOfSymbols(deployment.symbols) ?? 'SPOT';
    const startsWithRecording = window.from <= span.first;
    const initialCapital = (startsWithRecording ? runs[0]?.startEquity : null) ?? candles[0]!.equity;
    if (!(initialCapital > 0)) throw new StratboxError('CONFLICT', `Deployment ${deployment.id} had no equity to replay with`);
    const funding = marketType === 'LINEAR' ? await loadFunding(deployment, window) : null;

    const output = await runReplay(
      { strategyRunner: deps.strategyRunner, metering: deps.metering, signal: deps.signal },
      userId,
      {
        source: version.source,
        series: replaySeries.series,
        startTime: replaySeries.startTime,
        fees: settings.fees,
        leverage: marketType === 'SPOT' ? 1 : (deployment.leverage ?? 1),
        slippage: settings.slippage,
        initialCapital,
        params: deployment.params,
        marketType,
        seed: deploymentSeed(deployment.id),
        ...(funding ? { funding } : {}),
      },
      ownsSource,
    );

    const orders = await listAllOrders(store, userId, deployment.id);
    // Fills within the window: one after its end (the last candle's close) is of an order placed at
    // the last candle, which the replay, with no later candle, cannot fill either.
    const fills = liveFillsOf(orders).filter((f) => f.time >= window.from && f.time < window.to);
    // Full resolution (the downsampled curve may skip the candles downtime is measured on).
    const full = output.equitySeries;
    const equityCurve = full
      ? Array.from(full.times, (time, i) => ({ time, equity: full.equity[i]! }))
      : output.equityCurve.map((p) => ({ time: Date.parse(p.time), equity: p.equity }));
    const metric = (name: string) => {
      const value = output.metrics[name];
      return typeof value === 'number' && Number.isFinite(value) ? value : 0;
    };
    const computedAt = clock.now().toISOString();
    const input: DriftInput = {
      deploymentId: deployment.id,
      strategyVersion: deployment.strategyVersion,
      symbols: [...deployment.symbols],
      stepMs,
      window: { from: window.from, to: window.to },
      computedAt,
      live: { candles, intents, fills, runs, funding: null },
      replay: {
        downtimeCandles: replaySeries.downtimeCandles,
        orders: output.journal ?? [],
        equityCurve,
        initialCapital,
        finalEquity: equityCurve[equityCurve.length - 1]?.equity ?? initialCapital,
        fees: metric('feesPaid'),
        funding: metric('fundingPaid'),
        cpuMs: output.computeMs,
      },
      model: { slippage: settings.slippage, fees: settings.fees },
      thresholds,
    };
    const result = computeDrift(input);
    const stored = { deploymentId: deployment.id, windowKey: key, recordedUpTo: span.last, report: result, updatedAt: computedAt };
    // One write when the report raises nothing; with an alert, the report and its event together.
    const alerted =
      result.alerts.breached.length === 0
        ? await store.driftReports.save(stored).then(() => null)
        : await store.transaction(async (tx) => {
            await tx.driftReports.save(stored);
            return recordDriftAlert(tx, deployment, result, computedAt);
          });
    if (alerted) logger.info('Drift alert raised', { deploymentId: deployment.id, metrics: result.alerts.breached.map((b) => b.metric) });
    return result;
  }

  /** Funding rates as a backtest loads them (LINEAR); a symbol without rates runs without funding, and a failed load runs with none. */
  async function loadFunding(deployment: DeploymentRecord, window: { from: number; to: number }) {
    try {
      const loaded = await loadBacktestFunding(deps.marketData, { symbols: deployment.symbols, startDate: dayOf(window.from), endDate: dayOf(window.to - 1) });
      return loaded.source === null ? null : loaded.funding;
    } catch (error) {
      logger.warn('Drift replay runs without funding: the funding rates could not be loaded', {
        deploymentId: deployment.id,
        error: error instanceof Error ? error.message : String(error),
      });
      return null;
    }
  }

  return {
    /**
     * The drift report of the user's deployment over `from`/`to` (default: the whole recording).
     * 404 for another user's deployment, 409 before it processed a candle (or none in the window),
     * 400 for a window that ends before it starts, 402 with no compute left.
     */
    async report(userId: string, deploymentId: string, query: DriftQueryInput = {}): Promise<DriftReport> {
      return report(await ownDeployment(userId, deploymentId), query);
    },

    /** The deployment's alert thresholds (the defaults until its owner sets some). */
    async thresholds(userId: string, deploymentId: string): Promise<DriftThresholds> {
      await ownDeployment(userId, deploymentId);
      return thresholdsOf(deploymentId);
    },

    /** Sets the thresholds: the fields given over the defaults (`null` turns one off). */
    async setThresholds(userId: string, deploymentId: string, body: Partial<DriftThresholds>): Promise<DriftThresholds> {
      await ownDeployment(userId, deploymentId);
      const thresholds: DriftThresholds = { ...DEFAULT_DRIFT_THRESHOLDS };
      for (const [name, value] of Object.entries(body) as Array<[keyof DriftThresholds, never]>) if (value !== undefined) thresholds[name] = value;
      await store.driftReports.saveThresholds(deploymentId, thresholds);
      return thresholds;
    },

    /**
     * For the refresh loop: the default-window report of a deployment, recomputed when a candle
     * was recorded since the stored one (alerts raised as for any report); null before its first candle.
     */
    async refresh(deployment: DeploymentRecord): Promise<DriftReport | null> {
      if (!(await store.deploymentRecordings.span(deployment.id))) return null;
      return report(deployment, {});
    },
  };
}

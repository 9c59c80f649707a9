import { saveRecord } from './save-record.js';
import { runRecordIdentity } from './record-run.js';
import { downsampleEquity } from '../../backtests/equity-downsample.js';
import { loadBacktestCandles } from '../../backtests/load-backtest-candles.js';
import { loadBacktestFunding } from '../../backtests/load-backtest-funding.js';
import { cpuMsOf } from '../../runs/run-errors.js';
import { curveMetrics } from '../../backtests/engine/metrics.js';
import { dayOf, sliceSeries } from '../../market-data/candle-series.js';
import { TIMEFRAME_MS, type CandleSeries, type MarketData, type TimeframeName } from '../../ports/market-data.js';
import type { VerificationRecordRow } from '../../ports/store-verification.js';
import { badgeFor } from './evidence-badge.js';
import { appendPoints, decodePoints } from './equity-points.js';
import { RECORD_EQUITY_POINTS, type VerificationDeps } from './platform-backtest.js';
import { recordMetrics } from './record-metrics.js';
import { loadRecordStrategy, recordError, type RecordStrategy } from './record-strategy.js';
import { nextUpdatedAt } from './record-views.js';

const DAY_MS = 86_400_000;
/** A recomputed point differs from the stored one beyond this relative tolerance: kept as stored, and logged. */
const SAME = 1e-9;

/** Candles (and funding rates) of one symbol set and timeframe, loaded once for every record that runs on them. */
export interface ForwardMarket {
  symbols: string[];
  timeframe: TimeframeName;
  series: CandleSeries[];
  funding: Record<string, { time: Float64Array; rate: Float64Array }> | null;
}

/** What a forward market must cover: from the earliest record's start day (with the largest warm-up) to the last closed candle's day. */
export interface ForwardMarketRequest {
  symbols: string[];
  timeframe: TimeframeName;
  fromDay: string;
  toDay: string;
  warmup: number;
  funding: boolean;
}

/** Loads a forward market with the backtests' own loaders (same candles, same warm-up rule, same funding rates). */
export async function loadForwardMarket(marketData: MarketData, request: ForwardMarketRequest): Promise<ForwardMarket> {
  const { symbols, timeframe, fromDay, toDay } = request;
  const candles = await loadBacktestCandles(marketData, { symbols, timeframe, startDate: fromDay, endDate: toDay, warmup: request.warmup });
  const funding = request.funding ? await loadBacktestFunding(marketData, { symbols, startDate: fromDay, endDate: toDay }) : null;
  return { symbols, timeframe, series: candles.series, funding: funding && funding.source !== null ? funding.funding : null };
}

/** Open time of the last candle of `timeframeMs` closed at `nowMs`. */
export function lastClosedOpen(nowMs: number, timeframeMs: number): number {
  return Math.floor(nowMs / timeframeMs) * timeframeMs - timeframeMs;
}

/** Open time of the record's first forward candle: the first that opens at or after `forward.start`. */
export function firstForwardOpen(record: VerificationRecordRow): number {
  const tf = TIMEFRAME_MS[record.identity.timeframe as TimeframeName];
  return Math.ceil(Date.parse(record.forward.start) / tf) * tf;
}

/** What the record needs loaded to advance at `nowMs`, or null when it is current (no new closed candle). */
export function forwardNeed(record: VerificationRecordRow, nowMs: number): { fromDay: string; toDay: string; upTo: number } | null {
  const tf = TIMEFRAME_MS[record.identity.timeframe as TimeframeName];
  const upTo = lastClosedOpen(nowMs, tf);
  const first = firstForwardOpen(record);
  const last = record.forward.lastCandleAt ? Date.parse(record.forward.lastCandleAt) : first - tf;
  if (upTo < first || upTo <= last) return null;
  return { fromDay: dayOf(first), toDay: dayOf(upTo), upTo };
}

/** How an advance ended. */
export type ForwardAdvance =
  | { status: 'advanced'; record: VerificationRecordRow; added: number; computeMs: number }
  /** No new closed candle (or none in the data yet). */
  | { status: 'current'; record: VerificationRecordRow }
  /** Another node advanced or changed it first: nothing written. */
  | { status: 'lost'; record: VerificationRecordRow; computeMs: number }
  /** Not ready, superseded, or the run failed (logged; tried again next round). */
  | { status: 'skipped'; record: VerificationRecordRow; reason: string; computeMs?: number };

export interface AdvanceOptions {
  /** Candles covering the record (the loop loads one per symbol set and timeframe); default: loaded here. */
  market?: ForwardMarket;
  /** The version's source and declaration, when the caller has them. */
  strategy?: RecordStrategy;
}

/** The record's run input from a market: `warmup - 1` candles before its first forward candle, then up to `upTo`. */
function recordSeries(market: ForwardMarket, first: number, upTo: number, warmup: number): CandleSeries[] {
  const need = Math.max(0, Math.floor(warmup) - 1);
  return market.series.map((s) => {
    let i0 = 0;
    while (i0 < s.length && s.time[i0]! < first) i0++;
    let hi = s.length;
    while (hi > 0 && s.time[hi - 1]! > upTo) hi--;
    if (i0 < need) {
      throw Object.assign(new Error(`The forward record needs ${need} ${s.timeframe} candles of ${s.symbol} before its start to warm up`), {
        code: 'WARMUP_DATA_MISSING',
      });
    }
    return sliceSeries(s, i0 - need, Math.max(hi, i0 - need));
  });
}

/**
 * Advances a ready record's forward segment to the last closed candle. The forward record is the
 * strategy run on the account model paper deployments use (one fill and account model,
 * docs/backtest-model.md) from `forward.start`: the runner runs the version over its warm-up and
 * [forward.start, last closed candle] (traded from the first candle at or after the start), and
 * only points after the stored ones are appended. Stored history is never rewritten: a recomputed
 * earlier point that differs is logged and the stored one kept. The last point is marked to
 * market (the runner's end-of-run close and its fee are taken back out, since the position stays
 * open). Then the candles, days, metrics (over the stored equity; trades closed by the strategy),
 * downsampled equity and badge; written with the compare-and-set, so of two nodes one writes.
 * Keeps the listing's summary in sync.
 */
export async function advanceForwardRecord(deps: VerificationDeps, record: VerificationRecordRow, options: AdvanceOptions = {}): Promise<ForwardAdvance> {
  const { store, clock, logger, settings } = deps;
  if (record.status !== 'ready') return { status: 'skipped', record, reason: `record is ${record.status}` };
  if (record.supersededAt) return { status: 'skipped', record, reason: 'record is superseded' };
  const need = forwardNeed(record, clock.now().getTime());
  if (!need) return { status: 'current', record };
  const { identity } = record;
  const timeframe = identity.timeframe as TimeframeName;
  const tf = TIMEFRAME_MS[timeframe];
  const first = firstForwardOpen(record);
  let computeMs = 0;
  let output: Awaited<ReturnType<VerificationDeps['strategyRunner']['run']>>;
  try {
    const strategy = options.strategy ?? (await loadRecordStrategy(store, deps.strategyRunner, record, settings.tenant));
    const warmup = strategy.declaration.warmup ?? 0;
    const funding = identity.funding && identity.marketType === 'LINEAR';
    const market =
      options.market ??
      (await loadForwardMarket(deps.marketData, { symbols: identity.symbols, timeframe, fromDay: need.fromDay, toDay: need.toDay, warmup, funding }));
    const series = recordSeries(market, first, need.upTo, warmup);
    if (series.every((s) => s.length === 0 || s.time[s.length - 1]! < first)) return { status: 'current', record };
    output = await runRecordIdentity(deps, record, {
      source: strategy.source,
      series,
      startTime: first,
      seedWindow: { startDate: record.forward.start, endDate: 'forward' },
      funding: funding && market.funding ? market.funding : undefined,
    });
    computeMs = output.computeMs;
  } catch (error) {
    computeMs = cpuMsOf(error);
    if (!deps.signal?.aborted) {
      logger.warn('Verification forward run failed; tried again next round', { recordId: record.id, error: recordError(error), computeMs });
    }
    return { status: 'skipped', record, reason: recordError(error).message, computeMs };
  }

  // The recomputed curve, the last point marked to market (the runner closed what was open at the end).
  const trades = output.trades as Array<{ exitReason?: string; exitPrice: number; quantity: number; fees: number; funding?: number; pnl: number }>;
  const endExits = trades.filter((t) => t.exitReason === 'end');
  const endFees = endExits.reduce((sum, t) => sum + Math.abs(t.exitPrice * t.quantity) * identity.fees.taker, 0);
  const curve = output.equityCurve.map((p) => [Date.parse(p.time), p.equity] as [number, number]);
  if (curve.length > 0) curve[curve.length - 1]![1] += endFees;

  const stored = decodePoints(record.forward.points);
  const lastStored = stored.times.length > 0 ? stored.times[stored.times.length - 1]! : -Infinity;
  const fresh: Array<[number, number]> = [];
  let differs = 0;
  let firstDiff: number | null = null;
  let j = 0;
  for (const [time, equity] of curve) {
    if (time < first || time > need.upTo) continue;
    if (time > lastStored) {
      fresh.push([time, equity]);
      continue;
    }
    while (j < stored.times.length && stored.times[j]! < time) j++;
    if (j < stored.times.length && stored.times[j] === time) {
      const was = stored.equity[j]!;
      if (Math.abs(was - equity) > SAME * Math.max(1, Math.abs(was))) {
        differs++;
        firstDiff ??= time;
      }
    }
  }
  if (differs > 0) {
    logger.warn('Verification forward record: recomputed points differ from the stored ones; the stored ones are kept', {
      recordId: record.id,
      points: differs,
      first: new Date(firstDiff!).toISOString(),
    });
  }
  logger.info('Verification compute (platform)', { recordId: record.id, listingId: record.listingId, segment: 'forward', computeMs, tenant: settings.tenant });
  if (fresh.length === 0) return { status: 'current', record };

  const points = appendPoints(record.forward.points, fresh);
  const all = decodePoints(points);
  const n = all.times.length;
  const lastCandle = all.times[n - 1]!;
  const curveFigures = curveMetrics({ times: all.times, values: all.equity, initial: identity.initialCapital });
  const closed = trades.filter((t) => t.exitReason !== 'end');
  const exposure = (output.metrics as { exposure?: unknown }).exposure;
  const figures = {
    totalReturn: curveFigures.totalReturn,
    cagr: curveFigures.cagr,
    maxDrawdown: curveFigures.maxDrawdown,
    sharpe: curveFigures.sharpe,
    exposure: typeof exposure === 'number' ? exposure : null,
    tradeCount: closed.length,
    // every fee paid so far: the end-of-run closes' exit fees were never paid
    feesPaid: trades.reduce((sum, t) => sum + t.fees, 0) - endFees,
    fundingPaid: trades.reduce((sum, t) => sum + (t.funding ?? 0), 0),
  };
  const metrics = recordMetrics(figures, { times: all.times, equity: all.equity, initial: identity.initialCapital, timeframeMs: tf }, null);
  const days = (lastCandle + tf - Date.parse(record.forward.start)) / DAY_MS;
  const forward: VerificationRecordRow['forward'] = {
    start: record.forward.start,
    lastCandleAt: new Date(lastCandle).toISOString(),
    candles: n,
    days,
    metrics,
    equity: downsampleEquity(all.times, all.equity, RECORD_EQUITY_POINTS),
    points,
  };
  const badge = badgeFor(days, closed.length, settings.badge);
  const updated = await saveRecord(store, record, { forward, badge, updatedAt: nextUpdatedAt(record.updatedAt, clock.now()) });
  if (!updated) return { status: 'lost', record, computeMs };
  return { status: 'advanced', record: updated, added: fresh.length, computeMs };
}

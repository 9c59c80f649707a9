import type { z } from 'zod';
import type { BacktestDetail, BacktestSummary, LogEntry } from '@stratbox/contract';
import type { BacktestTrade } from './engine/build-result.js';
import type { BacktestLogRecord, BacktestRecord, BacktestResultSummary, BacktestTradeRecord } from '../ports/store.js';

/** The API view of a backtest record. */
export function toBacktestSummary(r: BacktestRecord): BacktestSummary {
  return {
    id: r.id,
    strategyId: r.strategyId,
    strategyVersion: r.strategyVersion,
    status: r.status,
    progress: r.progress,
    symbols: r.symbols,
    startDate: r.startDate,
    endDate: r.endDate,
    timeframe: r.timeframe as BacktestSummary['timeframe'],
    marketType: r.marketType,
    fees: r.fees,
    leverage: r.leverage,
    slippage: r.slippage,
    initialCapital: r.initialCapital,
    params: r.params,
    dataSource: r.dataSource,
    funding: r.funding,
    fundingSource: r.fundingSource,
    createdAt: r.createdAt,
    startedAt: r.startedAt,
    finishedAt: r.finishedAt,
    error: r.error,
  };
}

/** A stored trade as the API shows it: runs stored before funding existed have no `funding` (0). */
export function toTradeView(trade: Record<string, unknown>): BacktestTrade {
  return { funding: 0, ...trade } as BacktestTrade;
}

/** Stored metrics as the API shows them: runs stored before funding existed have no `fundingPaid` (0). */
function toMetricsView(metrics: Record<string, unknown>): NonNullable<BacktestDetail['metrics']> {
  const perSymbol = (metrics.perSymbol ?? {}) as Record<string, Record<string, unknown>>;
  return {
    fundingPaid: 0,
    ...metrics,
    perSymbol: Object.fromEntries(Object.entries(perSymbol).map(([symbol, m]) => [symbol, { fundingPaid: 0, ...m }])),
  } as NonNullable<BacktestDetail['metrics']>;
}

/**
 * The API view with results (null until completed): the first `DETAIL_TRADES` stored trades in
 * `firstTrades`, and how many there are in all.
 */
export function toBacktestDetail(r: BacktestRecord, result: BacktestResultSummary | null, firstTrades: readonly BacktestTradeRecord[] = []): BacktestDetail {
  return {
    ...toBacktestSummary(r),
    equityCurve: result?.equityCurve ?? null,
    trades: result ? firstTrades.map((t) => toTradeView(t.trade)) : null,
    tradeCount: result?.tradeCount ?? null,
    storedTradeCount: result?.storedTradeCount ?? null,
    tradesTruncated: result ? result.storedTradeCount < result.tradeCount : null,
    metrics: result?.metrics ? toMetricsView(result.metrics as Record<string, unknown>) : null,
  };
}

/** The data of a `backtest:<id>:progress` event for a record. */
export function toProgressEvent(r: BacktestRecord) {
  return { backtestId: r.id, status: r.status, progress: r.progress, processedBars: r.processedBars, totalBars: r.totalBars };
}

/** A stored log line of a backtest as the API shows it: the line shape of a deployment's log. */
export function toBacktestLogEntry(l: BacktestLogRecord): z.infer<typeof LogEntry> {
  return { timestamp: l.timestamp, level: l.level, message: l.message };
}

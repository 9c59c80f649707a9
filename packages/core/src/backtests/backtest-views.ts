import type { BacktestDetail, BacktestSummary } from '@stratbox/contract';
import type { BacktestRecord, BacktestResultSummary, BacktestTradeRecord } from '../ports/store.js';

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

/**
 * The API view with results (null until completed): the first `DETAIL_TRADES` stored trades in
 * `firstTrades`, and how many there are in all.
 */
export function toBacktestDetail(r: BacktestRecord, result: BacktestResultSummary | null, firstTrades: readonly BacktestTradeRecord[] = []): BacktestDetail {
  return {
    ...toBacktestSummary(r),
    equityCurve: result?.equityCurve ?? null,
    trades: result ? (firstTrades.map((t) => t.trade) as NonNullable<BacktestDetail['trades']>) : null,
    tradeCount: result?.tradeCount ?? null,
    storedTradeCount: result?.storedTradeCount ?? null,
    tradesTruncated: result ? result.storedTradeCount < result.tradeCount : null,
    metrics: (result?.metrics as BacktestDetail['metrics']) ?? null,
  };
}

/** The data of a `backtest:<id>:progress` event for a record. */
export function toProgressEvent(r: BacktestRecord) {
  return { backtestId: r.id, status: r.status, progress: r.progress, processedBars: r.processedBars, totalBars: r.totalBars };
}

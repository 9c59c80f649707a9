import type { BacktestRecord } from '../ports/store.js';
import { newId } from '../util/ids.js';

/** What a new backtest runs: who, which strategy version, over what, with which settings. */
export type NewBacktest = Pick<
  BacktestRecord,
  | 'userId'
  | 'strategyId'
  | 'strategyVersion'
  | 'totalBars'
  | 'symbols'
  | 'startDate'
  | 'endDate'
  | 'timeframe'
  | 'marketType'
  | 'fees'
  | 'leverage'
  | 'slippage'
  | 'initialCapital'
  | 'params'
  | 'funding'
>;

/** A queued backtest record with a new id, created now: what the service stores before it enqueues the job. */
export function newBacktestRecord(fields: NewBacktest, createdAt: string): BacktestRecord {
  return {
    ...fields,
    id: newId('backtest'),
    status: 'queued',
    progress: 0,
    processedBars: 0,
    dataSource: null,
    // SPOT has no funding: a request for it is ignored, and the record says the run pays none.
    funding: fields.funding && fields.marketType === 'LINEAR',
    fundingSource: null,
    computeMs: 0,
    attempts: 0,
    createdAt,
    startedAt: null,
    finishedAt: null,
    error: null,
  };
}

import type { ListingRecordSummary, VerificationRecord } from '@stratbox/contract';
import type { VerificationRecordRow } from '../../ports/store-verification.js';

/** The summary a listing carries for search (`listings.setRecordSummary`). */
export function summaryOf(record: VerificationRecordRow): ListingRecordSummary {
  return {
    badge: record.badge,
    status: record.status,
    backtestReturn: record.backtest?.metrics.totalReturn ?? null,
    forwardReturn: record.forward.metrics?.totalReturn ?? null,
    forwardSharpe: record.forward.metrics?.sharpe ?? null,
    forwardDays: record.forward.days,
    forwardTrades: record.forward.metrics?.tradeCount ?? 0,
    dsr: record.backtest?.metrics.dsr ?? null,
    searchEffort: record.searchEffort.total,
  };
}

/** The record as the contract shows it: no seller or strategy id, no stored points. */
export function toVerificationRecordView(row: VerificationRecordRow): VerificationRecord {
  const { points: _points, ...forward } = row.forward;
  return {
    id: row.id,
    listingId: row.listingId,
    status: row.status,
    error: row.error,
    identity: row.identity,
    backtest: row.backtest,
    forward,
    searchEffort: row.searchEffort,
    badge: row.badge,
    createdAt: row.createdAt,
    supersededAt: row.supersededAt,
  };
}

/** A new `updatedAt` strictly after the previous one (the compare-and-set's token), even when the clock has not moved. */
export function nextUpdatedAt(previous: string, now: Date): string {
  const before = Date.parse(previous);
  return new Date(Math.max(now.getTime(), Number.isFinite(before) ? before + 1 : 0)).toISOString();
}

import type { DriftReport, DriftThresholds } from '@stratbox/contract';
import type { RecordedCandle, RecordedIntent, RecordedRun } from '../drift/drift-types.js';

/*
 * The drift report's data in the Store port (docs/drift.md): what each live or paper deployment
 * recorded as it ran, the stored reports, and each deployment's alert thresholds. The general
 * guarantees of store.ts hold. Recordings are kept while the deployment exists and are removed
 * with it; they are written as the run goes (each candle and its intents in one call), so a
 * crash loses at most the call in flight.
 */

export interface DeploymentRecordingRepository {
  /**
   * Records one delivered candle and the intents of its `onCandle` call, atomically. A candle
   * already recorded for (deployment, symbol, time) is kept as it was (a resumed run that sees
   * it again changes nothing) and its intents are still added when their ids are new.
   */
  recordCandle(candle: RecordedCandle, intents: readonly RecordedIntent[]): Promise<void>;
  /** Records intents made outside a candle call (`onOrder`); an id already recorded is skipped. */
  recordIntents(intents: readonly RecordedIntent[]): Promise<void>;
  /** Records the start of a run (a start by the owner or a resume). */
  recordRun(run: RecordedRun): Promise<void>;
  /** The deployment's candles with `from <= time < to`, by time then symbol. */
  listCandles(deploymentId: string, from: number, to: number): Promise<RecordedCandle[]>;
  /** The deployment's intents with `from <= candleTime < to`, in the order they were recorded. */
  listIntents(deploymentId: string, from: number, to: number): Promise<RecordedIntent[]>;
  /** Every run of the deployment, oldest first. */
  listRuns(deploymentId: string): Promise<RecordedRun[]>;
  /** The first and last recorded candle times, or null when none. */
  span(deploymentId: string): Promise<{ first: number; last: number; count: number } | null>;
  /** Removes everything recorded for the deployment (with its reports and thresholds). */
  deleteByDeployment(deploymentId: string): Promise<void>;
}

/** A stored report, keyed by its window; `recordedUpTo` is the last candle time it covered. */
export interface StoredDriftReport {
  deploymentId: string;
  /** `from`/`to` of the request as given (null: the default), so the same question finds it again. */
  windowKey: string;
  recordedUpTo: number;
  report: DriftReport;
  updatedAt: string;
}

export interface DriftReportRepository {
  /** The stored report of this deployment and window key, or null. */
  find(deploymentId: string, windowKey: string): Promise<StoredDriftReport | null>;
  /** Inserts or replaces the report of (deployment, window key). */
  save(report: StoredDriftReport): Promise<void>;
  /** The deployment's thresholds, or null when its owner never set any (the defaults apply). */
  findThresholds(deploymentId: string): Promise<DriftThresholds | null>;
  saveThresholds(deploymentId: string, thresholds: DriftThresholds): Promise<void>;
}

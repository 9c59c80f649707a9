import type { DriftThresholds } from '@stratbox/contract';
import type { RecordedCandle, RecordedIntent, RecordedRun } from '../drift/drift-types.js';
import type { StoredDriftReport, StoreRepositories } from '../ports/store.js';

/**
 * The drift part of the memory store's state: what deployments recorded as they ran, the stored
 * reports and the alert thresholds. Maps keep insertion order, which is the intents' recorded
 * order; records are replaced, never mutated.
 */
export interface DriftState {
  /** By `candleKey`. */
  candles: Map<string, RecordedCandle>;
  /** By intent id, in the order they were recorded. */
  intents: Map<string, RecordedIntent>;
  /** Every run of every deployment, oldest first (the array is replaced, never mutated). */
  runs: RecordedRun[];
  /** By `reportKey`. */
  reports: Map<string, StoredDriftReport>;
  /** By deployment id. */
  thresholds: Map<string, DriftThresholds>;
}

export const emptyDriftState = (): DriftState => ({ candles: new Map(), intents: new Map(), runs: [], reports: new Map(), thresholds: new Map() });

/** Maps copied, records shared (records are replaced, never mutated). */
export const cloneDriftState = (s: DriftState): DriftState => ({
  candles: new Map(s.candles),
  intents: new Map(s.intents),
  runs: s.runs,
  reports: new Map(s.reports),
  thresholds: new Map(s.thresholds),
});

type Change<T> = (state: DriftState) => T;
type DriftRepositories = Pick<StoreRepositories, 'deploymentRecordings' | 'driftReports'>;

const candleKey = (deploymentId: string, symbol: string, time: number) => JSON.stringify([deploymentId, symbol, time]);
const reportKey = (deploymentId: string, windowKey: string) => JSON.stringify([deploymentId, windowKey]);

/** JSON fields go through JSON, as in the SQL stores, so that what is not JSON shows up in tests. */
const jsonCopy = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

function addIntents(s: DriftState, intents: readonly RecordedIntent[]) {
  for (const intent of intents) if (!s.intents.has(intent.id)) s.intents.set(intent.id, intent);
}

/**
 * The memory store's drift repositories over `get()`; every change goes through `write` (which,
 * in a transaction, applies it to the draft and replays it at commit). Recording is insert-once,
 * so a replayed change decides again on the live state and never fails a commit.
 */
export function memoryDriftRepositories(get: () => DriftState, write: <T>(change: Change<T>) => T): DriftRepositories {
  return {
    deploymentRecordings: {
      async recordCandle(candle, intents) {
        const value = { ...candle };
        const added = intents.map((i) => ({ ...i }));
        write((s) => {
          const key = candleKey(value.deploymentId, value.symbol, value.time);
          if (!s.candles.has(key)) s.candles.set(key, value);
          addIntents(s, added);
        });
      },

      async recordIntents(intents) {
        const added = intents.map((i) => ({ ...i }));
        write((s) => addIntents(s, added));
      },

      async recordRun(run) {
        const value = { ...run };
        write((s) => {
          s.runs = [...s.runs, value];
        });
      },

      async listCandles(deploymentId, from, to) {
        return [...get().candles.values()]
          .filter((c) => c.deploymentId === deploymentId && c.time >= from && c.time < to)
          .sort((a, b) => a.time - b.time || (a.symbol < b.symbol ? -1 : a.symbol > b.symbol ? 1 : 0))
          .map((c) => ({ ...c }));
      },

      async listIntents(deploymentId, from, to) {
        return [...get().intents.values()].filter((i) => i.deploymentId === deploymentId && i.candleTime >= from && i.candleTime < to).map((i) => ({ ...i }));
      },

      async listRuns(deploymentId) {
        return get()
          .runs.filter((r) => r.deploymentId === deploymentId)
          .map((r) => ({ ...r }));
      },

      async span(deploymentId) {
        let first = Number.POSITIVE_INFINITY;
        let last = Number.NEGATIVE_INFINITY;
        let count = 0;
        for (const c of get().candles.values()) {
          if (c.deploymentId !== deploymentId) continue;
          count++;
          if (c.time < first) first = c.time;
          if (c.time > last) last = c.time;
        }
        return count === 0 ? null : { first, last, count };
      },

      async deleteByDeployment(deploymentId) {
        write((s) => {
          for (const [key, c] of s.candles) if (c.deploymentId === deploymentId) s.candles.delete(key);
          for (const [id, i] of s.intents) if (i.deploymentId === deploymentId) s.intents.delete(id);
          s.runs = s.runs.filter((r) => r.deploymentId !== deploymentId);
          for (const [key, r] of s.reports) if (r.deploymentId === deploymentId) s.reports.delete(key);
          s.thresholds.delete(deploymentId);
        });
      },
    },

    driftReports: {
      async find(deploymentId, windowKey) {
        const r = get().reports.get(reportKey(deploymentId, windowKey));
        return r ? jsonCopy(r) : null;
      },

      async save(report) {
        const value = jsonCopy(report);
        write((s) => {
          s.reports.set(reportKey(value.deploymentId, value.windowKey), value);
        });
      },

      async findThresholds(deploymentId) {
        const t = get().thresholds.get(deploymentId);
        return t ? jsonCopy(t) : null;
      },

      async saveThresholds(deploymentId, thresholds) {
        const value = jsonCopy(thresholds);
        write((s) => {
          s.thresholds.set(deploymentId, value);
        });
      },
    },
  };
}

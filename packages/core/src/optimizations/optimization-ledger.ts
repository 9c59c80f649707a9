import type { OptimizationStatus } from '@stratbox/contract';
import { recordOptimizationEnd } from '../notifications/run-events.js';
import type { EventBus } from '../ports/event-bus.js';
import type { Store, StoreRepositories } from '../ports/store.js';
import type { OptimizationPatch, OptimizationRecord, OptimizationTrialRecord } from '../ports/store-optimizations.js';
import { optimizationProgressChannel, toOptimizationProgressEvent } from './optimization-views.js';
import { mergeBest } from './optimization-trial-record.js';

const EVERY_STATUS: readonly OptimizationStatus[] = ['queued', 'running', 'completed', 'failed', 'cancelled'];

/**
 * The optimization's record, locked for the rest of the transaction (a write that changes
 * nothing): commits of slices on several nodes, and the end, each read `computeMs` and write it
 * back, one after the other, so none is lost. Null when the optimization is gone.
 */
function lockRecord(tx: StoreRepositories, id: string): Promise<OptimizationRecord | null> {
  return tx.optimizations.transition(id, EVERY_STATUS, {});
}

export interface OptimizationLedgerDeps {
  store: Store;
  events: EventBus;
  /** Meters CPU milliseconds inside the transaction that records what used them (`repos`). */
  onCompute?: ((userId: string, computeMs: number, repos: StoreRepositories) => Promise<void>) | undefined;
}

/**
 * What the optimization worker writes about an optimization, each in one transaction with the
 * record locked, whichever node writes it: stored trials (counted and metered when new only),
 * the end (metered once, by the call that makes the move), CPU used by work that stopped.
 */
export function createOptimizationLedger(deps: OptimizationLedgerDeps) {
  const { store, events } = deps;
  const publish = (r: OptimizationRecord) => events.publish(optimizationProgressChannel(r.id), toOptimizationProgressEvent(r));

  return {
    publish,

    /**
     * Stores a slice's trials, counts and meters the newly stored ones only, and moves progress
     * and the fold's best on (while running): one transaction. Answers the record after and the
     * indexes this call stored; publishes the progress of a running optimization.
     */
    async commitTrials(
      id: string,
      fold: number | null,
      records: readonly OptimizationTrialRecord[],
    ): Promise<{ after: OptimizationRecord | null; fresh: number[] }> {
      const result = await store.transaction(async (tx) => {
        const current = await lockRecord(tx, id);
        if (!current) return { after: null, fresh: [] };
        const fresh = await tx.optimizations.saveTrials(records);
        const stored = new Set(fresh);
        const freshTrials = records.filter((t) => stored.has(t.index));
        const metered = freshTrials.reduce((sum, t) => sum + Math.ceil(t.cpuMs), 0);
        const trialsDone = await tx.optimizations.countTrials(id);
        const patch: OptimizationPatch = { trialsDone, computeMs: current.computeMs + metered };
        if (current.status === 'running') {
          Object.assign(patch, { best: mergeBest(current.best, fold, freshTrials), progress: Math.min(0.99, trialsDone / Math.max(1, current.trialsTotal)) });
        }
        const after = await tx.optimizations.transition(id, [current.status], patch);
        if (after && metered > 0) await deps.onCompute?.(current.userId, metered, tx);
        return { after, fresh };
      });
      if (result.after?.status === 'running') publish(result.after);
      return result;
    },

    /**
     * Moves a running optimization to its end (`patch`), meters the CPU not metered yet
     * (`pendingMs`) and writes what it leaves (`keep`), in one transaction: only the call that
     * makes the move writes and meters, so an end is metered once, and a crash leaves all of it
     * or none. Its notification (`optimization.completed` or `.failed`) is written in the same
     * transaction. Publishes the end; answers the record after, or null when it was no longer running.
     */
    async finish(id: string, patch: OptimizationPatch, pendingMs: number, keep?: (tx: StoreRepositories) => Promise<void>): Promise<OptimizationRecord | null> {
      const metered = Math.ceil(pendingMs);
      const done = await store.transaction(async (tx) => {
        const current = await lockRecord(tx, id);
        if (current?.status !== 'running') return null;
        const moved = await tx.optimizations.transition(id, ['running'], { ...patch, computeMs: current.computeMs + metered });
        if (!moved) return null;
        await keep?.(tx);
        if (metered > 0) await deps.onCompute?.(current.userId, metered, tx);
        await recordOptimizationEnd(tx, moved);
        return moved;
      });
      if (done) publish(done);
      return done;
    },

    /** Meters `ms` on an optimization that stopped (cancelled, failed, or still running for whoever takes it next); not on a completed one. */
    async meterStopped(id: string, ms: number): Promise<void> {
      const metered = Math.ceil(ms);
      if (metered <= 0) return;
      await store.transaction(async (tx) => {
        const current = await lockRecord(tx, id);
        if (!current || !['running', 'cancelled', 'failed'].includes(current.status)) return;
        const moved = await tx.optimizations.transition(id, [current.status], { computeMs: current.computeMs + metered });
        if (moved) await deps.onCompute?.(current.userId, metered, tx);
      });
    },
  };
}

export type OptimizationLedger = ReturnType<typeof createOptimizationLedger>;

import type { Job } from '../ports/job-queue.js';

/** The job of one slice of an optimization's trials, taken by any node that runs the optimization worker. */
export const OPTIMIZATION_SLICE_JOB = 'optimization.slice';

/** What a slice job carries: whose optimization, which fold, which trials (global indexes, ascending). */
export interface SlicePayload {
  optimizationId: string;
  userId: string;
  /** The validation fold; null without validation. */
  fold: number | null;
  indexes: number[];
}

/**
 * The id of a slice job: the optimization, the fold and the slice's first trial. The same slice
 * enqueued again (a coordinator delivered again after a crash) has the same id, so the queue
 * does not add it twice while it waits or runs.
 */
export function sliceJobId(optimizationId: string, fold: number | null, first: number): string {
  return `${optimizationId}_slice_${fold ?? 'all'}_${first}`;
}

export function sliceJob(slice: SlicePayload): Job {
  return {
    name: OPTIMIZATION_SLICE_JOB,
    id: sliceJobId(slice.optimizationId, slice.fold, slice.indexes[0] ?? 0),
    group: slice.userId,
    payload: { optimizationId: slice.optimizationId, userId: slice.userId, fold: slice.fold, indexes: slice.indexes },
  };
}

const isIndex = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;

/** The payload of a slice job, or null when it is not one (a job from another version, a corrupt one). */
export function parseSlicePayload(payload: Record<string, unknown>): SlicePayload | null {
  const { optimizationId, userId, fold, indexes } = payload;
  if (typeof optimizationId !== 'string' || typeof userId !== 'string') return null;
  if (fold !== null && !isIndex(fold)) return null;
  if (!Array.isArray(indexes) || indexes.length === 0 || !indexes.every(isIndex)) return null;
  return { optimizationId, userId, fold, indexes: [...indexes].sort((a, b) => a - b) };
}

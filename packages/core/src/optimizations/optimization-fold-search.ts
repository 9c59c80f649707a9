import { StratboxError } from '../errors/stratbox-error.js';
import type { EventBus } from '../ports/event-bus.js';
import type { JobQueue } from '../ports/job-queue.js';
import type { Logger } from '../ports/logger.js';
import type { Store } from '../ports/store.js';
import type { OptimizationRecord } from '../ports/store-optimizations.js';
import type { OptimizationPlan } from './optimization-plan.js';
import { type SlicePayload, sliceJob } from './optimization-slice-job.js';
import { FIRST_SLICE, nextSliceCount, nextSliceSize } from './slice-size.js';
import { createWaker } from './optimization-waker.js';

/** How often the slices in flight are enqueued again (their ids dedupe): one the queue lost is then run anyway. */
const RESEND_MS = 15_000;

export interface FoldSearchDeps {
  store: Store;
  queue: JobQueue;
  events: EventBus;
  logger: Logger;
  /** Slices of one optimization enqueued and not stored yet, at most: the nodes that may run them at once. */
  inFlight: number;
  /** CPU time a slice aims at, after the first (small) ones. */
  sliceMs: number;
  /** The Store is read at least this often while slices run (progress events wake the coordinator sooner). */
  pollMs: number;
}

/** The trials of a fold the coordinator waits for, the oldest slice first. */
function spanOf(slices: Iterable<SlicePayload>): { from: number; to: number } {
  let from = Infinity;
  let to = -Infinity;
  for (const s of slices) {
    from = Math.min(from, s.indexes[0]!);
    to = Math.max(to, s.indexes[s.indexes.length - 1]! + 1);
  }
  return { from, to };
}

/**
 * The coordinator's search of one fold (or of the whole range): the fold's trials not stored
 * yet, enqueued as slice jobs (`optimization.slice`) that any node running the optimization
 * worker takes, at most `inFlight` at once; returns once every trial of the fold is stored. The
 * first slices are small (`FIRST_SLICE`), later ones hold about `sliceMs` of CPU at the median
 * CPU of the last slice stored; near the end they shrink so that the slices in flight finish
 * about together. The Store is the truth: a slice is done when all its trials are stored,
 * whichever node (or earlier delivery) stored them. Throws when the optimization is no longer
 * running (a slice failed it, or it was cancelled: then its slices still waiting are cancelled
 * too) or when `signal` aborts.
 */
export function createFoldSearch(deps: FoldSearchDeps) {
  const { store, queue, events } = deps;
  const fanOut = Math.max(1, deps.inFlight);

  return async function searchFold(record: OptimizationRecord, plan: OptimizationPlan, stored: ReadonlySet<number>, fold: number | null, signal: AbortSignal) {
    const perFold = plan.points.length;
    const first = (fold ?? 0) * perFold;
    const todo: number[] = [];
    for (let i = first; i < first + perFold; i++) if (!stored.has(i)) todo.push(i);
    if (todo.length === 0) return;
    const inFlight = new Map<string, SlicePayload>();
    let size = FIRST_SLICE;
    let resendAt = Date.now() + RESEND_MS;
    const waker = await createWaker(events, record.id, deps.pollMs);
    try {
      while (todo.length > 0 || inFlight.size > 0) {
        signal.throwIfAborted();
        while (todo.length > 0 && inFlight.size < fanOut) {
          const slice: SlicePayload = {
            optimizationId: record.id,
            userId: record.userId,
            fold,
            indexes: todo.splice(0, nextSliceCount(todo.length, size, fanOut)),
          };
          const job = sliceJob(slice);
          inFlight.set(job.id, slice);
          await queue.enqueue(job);
          deps.logger.debug('Optimization slice enqueued', { optimizationId: record.id, fold, first: slice.indexes[0], trials: slice.indexes.length });
        }
        await waker.next(signal);
        signal.throwIfAborted();
        const current = await store.optimizations.findById(record.userId, record.id);
        if (current?.status !== 'running') throw new StratboxError('CONFLICT', 'The optimization is no longer running');
        const costs = await store.optimizations.listTrialCosts(record.id, spanOf(inFlight.values()));
        const cpuMs = new Map(costs.map((t) => [t.index, t.cpuMs]));
        for (const [id, slice] of inFlight) {
          if (!slice.indexes.every((i) => cpuMs.has(i))) continue;
          inFlight.delete(id);
          size = nextSliceSize(
            slice.indexes.map((i) => cpuMs.get(i)!),
            deps.sliceMs,
          );
        }
        if (Date.now() >= resendAt && inFlight.size > 0) {
          for (const slice of inFlight.values()) await queue.enqueue(sliceJob(slice));
          resendAt = Date.now() + RESEND_MS;
        }
      }
    } catch (error) {
      const latest = await store.optimizations.findById(record.userId, record.id).catch(() => null);
      if (latest && latest.status !== 'running') await Promise.allSettled([...inFlight.keys()].map((id) => queue.cancel(id)));
      throw error;
    } finally {
      waker.close();
    }
  };
}

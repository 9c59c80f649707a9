import type { Clock } from '../ports/clock.js';
import type { Job, JobQueue } from '../ports/job-queue.js';

/** What the lifecycle reads of a run's record (a backtest, an optimization). */
export interface RunRecord {
  id: string;
  userId: string;
  status: 'queued' | 'running' | 'completed' | 'failed' | 'cancelled';
  attempts: number;
}

/** The part of a run's patch the lifecycle writes. */
export interface RunPatch {
  status?: RunRecord['status'];
  startedAt?: string | null;
  attempts?: number;
}

/**
 * The Store operations a kind of run gives the lifecycle (`store.backtests`,
 * `store.optimizations`): a compare-and-set on `status` (of two concurrent transitions from the
 * same status, exactly one wins), and a scan of all users' runs in some statuses.
 */
export interface RunRecords<R extends RunRecord> {
  transition(id: string, from: readonly R['status'][], patch: RunPatch): Promise<R | null>;
  listByStatus(statuses: readonly R['status'][], limit: number): Promise<R[]>;
}

/**
 * Start-up recovery of runs a stop interrupted:
 * - `restart` (one node, in-process queue): every `running` run is this process's own dead run:
 *   re-queue it (or give it up after too many attempts) and re-add every `queued` one;
 * - `resubmit` (several nodes, shared queue): a `running` run may belong to a live worker on
 *   another node, so only re-add the jobs (the queue ignores those it already holds); a run
 *   whose worker died is handed out again by the queue's own stalled-job detection, and its
 *   handler takes it over (`job.redelivered`);
 * - `none`: nothing.
 */
export type RunRecovery = 'restart' | 'resubmit' | 'none';

export interface RunLifecycleOptions<R extends RunRecord> {
  records: RunRecords<R>;
  queue: JobQueue;
  clock: Clock;
  /** The queue's job name for this kind of run. */
  jobName: string;
  /** A run interrupted by crashes or stops is tried this many times in all; then it is given up. */
  maxAttempts: number;
  /**
   * What a run taken over from a dead worker, or re-queued at start-up, starts again from (a
   * backtest runs from its first candle: its progress goes back to 0; an optimization keeps its
   * stored trials: nothing). Fields of the kind's own patch type: check them with `satisfies`.
   */
  restartPatch: object;
  /**
   * Fails a run that was interrupted `attempts` times with `INTERRUPTED`, its notification in
   * the same transaction; nothing when it is no longer `running`.
   */
  giveUp(record: R): Promise<void>;
}

/**
 * The shared beginning of every run a worker takes from the queue: taking the job (a
 * compare-and-set, so a job delivered twice runs once), taking over a dead worker's run,
 * counting attempts and giving up on a run crashes keep interrupting, and recovering at start-up
 * what a stop left behind.
 */
export function createRunLifecycle<R extends RunRecord>(options: RunLifecycleOptions<R>) {
  const { records, queue, clock, jobName, maxAttempts, giveUp, restartPatch } = options;

  return {
    /**
     * Takes the job's run: `queued` to `running`, or (the job redelivered) a `running` run a dead
     * worker left, which starts again from `restartPatch`. Null when there is nothing to run
     * (cancelled, finished, taken by another worker, or given up); else the run with this
     * attempt counted.
     */
    async take(job: Job): Promise<R | null> {
      const now = clock.now().toISOString();
      let started = await records.transition(job.id, ['queued'], { status: 'running', startedAt: now });
      if (!started && job.redelivered) started = await records.transition(job.id, ['running'], { ...restartPatch, startedAt: now });
      if (!started) return null;
      if (started.attempts >= maxAttempts) {
        await giveUp(started);
        return null;
      }
      return records.transition(job.id, ['running'], { attempts: started.attempts + 1 });
    },

    /** Recovers what a stop left (see `RunRecovery`); answers how many jobs were re-added. */
    async recover(recovery: RunRecovery): Promise<number> {
      if (recovery === 'none') return 0;
      let added = 0;
      for (const r of await records.listByStatus(['queued', 'running'], 10_000)) {
        if (recovery === 'resubmit') {
          await queue.enqueue({ name: jobName, id: r.id, group: r.userId, payload: {}, ...(r.status === 'running' ? { redelivered: true } : {}) });
          added++;
          continue;
        }
        if (r.status === 'running') {
          if (r.attempts >= maxAttempts) {
            await giveUp(r);
            continue;
          }
          if (!(await records.transition(r.id, ['running'], { ...restartPatch, status: 'queued' }))) continue;
        }
        await queue.enqueue({ name: jobName, id: r.id, group: r.userId, payload: {} });
        added++;
      }
      return added;
    },
  };
}

/** The message of a run given up after `attempts` interruptions (`INTERRUPTED`). */
export function interruptedMessage(attempts: number): string {
  return `The run was interrupted ${attempts} times (server restart or crash); giving up`;
}

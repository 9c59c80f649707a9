/** A unit of background work. `id` is the record it works on (e.g. a backtest id). */
export interface Job {
  name: string;
  id: string;
  payload: Record<string, unknown>;
  /**
   * True when this job was handed out before and that delivery did not finish (its worker died
   * or shut down), or when a recovery scan re-adds a job whose record says it is running. The
   * handler may then take over a run left half-done.
   */
  redelivered?: boolean;
  /**
   * Who the job is for (a user id). Waiting jobs of different groups take turns, so one user's
   * many jobs never hold back another user's one by more than a job (see `JobQueue`).
   */
  group?: string;
}

export interface ProcessOptions {
  /** Jobs run at once by this `process` call. */
  concurrency: number;
  /** Jobs of one group run at once by this call (default: no cap besides `concurrency`). */
  perGroup?: number;
}

export type JobHandler = (job: Job, signal: AbortSignal) => Promise<void>;

/**
 * Background jobs (backtests). Guarantees every implementation gives:
 * - a job is handed to one handler at a time, at most `concurrency` at once per `process` call;
 * - a job with an id that is already waiting or running is not added twice;
 * - jobs of one name and group start in the order they were added (FIFO); groups take turns:
 *   a group's waiting job starts before the second waiting job of a group that already had a
 *   turn (exactly in process; shared queues may approximate it with priorities), and with
 *   `perGroup` no group runs more than that many at once;
 * - delivery is at least once: a job whose worker died may be handed out again, so handlers
 *   must be idempotent (backtests are: their state is a compare-and-set in the Store);
 * - `cancel(id)` removes a waiting job, or aborts the signal of the handler running it, on
 *   whichever node runs it.
 */
export interface JobQueue {
  /**
   * True when jobs live outside this process and several nodes share them (e.g. BullMQ): the
   * queue itself hands a dead worker's jobs out again, so start-up recovery must not touch runs
   * another live node holds. Absent or false: jobs live in this process only.
   */
  readonly shared?: boolean;
  enqueue(job: Job): Promise<void>;
  /** Starts taking jobs of this name. Call once per name. */
  process(name: string, handler: JobHandler, options: ProcessOptions): void;
  /** True if the job was waiting (now removed) or running (now signalled). */
  cancel(id: string): Promise<boolean>;
  /** Stops taking jobs, aborts running handlers and waits for them to settle. */
  close(): Promise<void>;
}

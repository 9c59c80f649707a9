/** A unit of background work. `id` is the record it works on (e.g. a backtest id). */
export interface Job {
  name: string;
  id: string;
  payload: Record<string, unknown>;
}

export type JobHandler = (job: Job, signal: AbortSignal) => Promise<void>;

/**
 * Background jobs (backtests). Guarantees every implementation gives:
 * - a job is handed to one handler at a time, at most `concurrency` at once per `process` call;
 * - a job with an id that is already waiting or running is not added twice;
 * - jobs of one name start in the order they were added (FIFO) within one queue;
 * - delivery is at least once: a job whose worker died may be handed out again, so handlers
 *   must be idempotent (backtests are: their state is a compare-and-set in the Store);
 * - `cancel(id)` removes a waiting job, or aborts the signal of the handler running it, on
 *   whichever node runs it.
 */
export interface JobQueue {
  enqueue(job: Job): Promise<void>;
  /** Starts taking jobs of this name. Call once per name. */
  process(name: string, handler: JobHandler, options: { concurrency: number }): void;
  /** True if the job was waiting (now removed) or running (now signalled). */
  cancel(id: string): Promise<boolean>;
  /** Stops taking jobs, aborts running handlers and waits for them to settle. */
  close(): Promise<void>;
}

/*
 * Long computations written once, run either at once or in time slices. A computation is a
 * generator that yields after each small step of work (well under a millisecond) and returns its
 * answer: `runSteps` drains it synchronously; `runStepsInSlices` drains it in slices of about
 * `sliceMs`, giving the event loop back between slices, so a server's other requests keep being
 * served while it runs. Both run the same steps in the same order: the same answer to the last bit.
 */

/** A computation in small steps: yields between steps, returns its answer. */
export type Steps<R> = Generator<void, R, void>;

/** How a computation shares the event loop. */
export interface SliceOptions {
  /** Aborts the computation: it stops at the end of the current slice and rejects with the signal's reason. */
  signal?: AbortSignal | undefined;
  /** Work between two turns of the event loop, in milliseconds. Default 10. */
  sliceMs?: number | undefined;
}

/** The default work between two turns of the event loop. */
export const DEFAULT_SLICE_MS = 10;

/** Runs every step at once and answers the result (errors thrown by a step are thrown). */
export function runSteps<R>(steps: Steps<R>): R {
  for (;;) {
    const next = steps.next();
    if (next.done) return next.value;
  }
}

/**
 * Runs the steps in slices of about `sliceMs` of work (at least one step each), with a turn of the
 * event loop (`setImmediate`: timers, I/O and other callbacks run) before each slice, the first
 * included. Rejects with the error a step throws, or with the signal's reason once it is aborted
 * (checked before each slice).
 */
export async function runStepsInSlices<R>(steps: Steps<R>, options: SliceOptions = {}): Promise<R> {
  const sliceMs = options.sliceMs ?? DEFAULT_SLICE_MS;
  for (;;) {
    await new Promise<void>((resolve) => setImmediate(resolve));
    options.signal?.throwIfAborted();
    const started = performance.now();
    do {
      const next = steps.next();
      if (next.done) return next.value;
    } while (performance.now() - started < sliceMs);
  }
}

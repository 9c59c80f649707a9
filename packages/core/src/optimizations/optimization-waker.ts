import type { EventBus } from '../ports/event-bus.js';
import { optimizationProgressChannel } from './optimization-views.js';

export interface Waker {
  /** Resolves at the next progress event of the optimization (or at once if one came since the last call), after `pollMs` at the latest, or when `signal` aborts. */
  next(signal: AbortSignal): Promise<void>;
  close(): void;
}

/**
 * Wakes an optimization's coordinator when a slice was stored (the optimization's progress
 * events, published on whichever node stored it), with a poll of `pollMs` as the fallback: an
 * event is only a hint, the Store says what is stored.
 */
export async function createWaker(events: EventBus, optimizationId: string, pollMs: number): Promise<Waker> {
  let pending = false;
  let wake: (() => void) | null = null;
  // Without events (a bus closing), the poll alone still sees every slice stored.
  const unsubscribe = await events
    .subscribe(optimizationProgressChannel(optimizationId), () => {
      pending = true;
      wake?.();
    })
    .catch(() => () => undefined);
  return {
    next(signal) {
      if (pending || signal.aborted) {
        pending = false;
        return Promise.resolve();
      }
      return new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          signal.removeEventListener('abort', done);
          wake = null;
          pending = false;
          resolve();
        };
        const timer = setTimeout(done, pollMs);
        signal.addEventListener('abort', done, { once: true });
        wake = done;
      });
    },
    close() {
      wake?.();
      unsubscribe();
    },
  };
}

import type { Clock } from '../ports/clock.js';
import type { Logger } from '../ports/logger.js';
import type { Store } from '../ports/store.js';
import type { DeliveryAttempt } from './delivery-attempt.js';
import type { NotificationDispatcher } from './dispatcher.js';
import type { NotificationSettings } from './notification-settings.js';

export interface DeliveryLoopDeps {
  store: Store;
  clock: Clock;
  logger: Logger;
  dispatcher: NotificationDispatcher;
  attempt: DeliveryAttempt;
  settings: Pick<NotificationSettings, 'pollIntervalMs' | 'concurrency' | 'timeoutMs'>;
}

/**
 * Each node's notification loop: every `pollIntervalMs` it fans out the outbox, then claims due
 * deliveries from the Store (a lease, `SKIP LOCKED` on PostgreSQL) up to its free capacity and
 * sends them. The Store is the work queue, so whatever job queue the nodes share (in process or
 * BullMQ), each delivery is sent by one node at a time; a node that dies mid-send loses its
 * lease and another node sends the delivery again (at least once: receivers dedupe by
 * `Idempotency-Key`).
 */
export function createDeliveryLoop({ store, clock, logger, dispatcher, attempt, settings }: DeliveryLoopDeps) {
  // Longer than any attempt (the timeout bounds it), short enough that a dead node's deliveries are soon sent by another.
  const leaseMs = settings.timeoutMs * 2 + 5_000;
  const inFlight = new Set<Promise<unknown>>();
  /** Deliveries this node is sending: a lease that ran out under load is never a reason to send one twice from here. */
  const sending = new Set<string>();
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let ticking: Promise<void> | undefined;
  let wakeAgain = false;
  let closed = false;

  async function claimAndSend(): Promise<void> {
    const free = settings.concurrency - inFlight.size;
    if (free <= 0) return;
    const now = clock.now();
    const claimed = await store.notificationDeliveries.claimDue(now.toISOString(), new Date(now.getTime() + leaseMs).toISOString(), free);
    for (const delivery of claimed) {
      if (sending.has(delivery.id)) continue;
      sending.add(delivery.id);
      const attempting = attempt(delivery, { retry: true, signal: controller.signal })
        .catch((error) =>
          logger.error('A notification attempt failed unexpectedly; its lease will run out and it is retried', {
            deliveryId: delivery.id,
            error: error instanceof Error ? error.message : String(error),
          }),
        )
        .finally(() => {
          inFlight.delete(attempting);
          sending.delete(delivery.id);
          if (!closed) wake();
        });
      inFlight.add(attempting);
    }
  }

  async function tick(): Promise<void> {
    try {
      await dispatcher.dispatchPending();
      if (settings.concurrency > 0) await claimAndSend();
    } catch (error) {
      logger.error('The notification loop failed a round; it tries again', { error: error instanceof Error ? error.message : String(error) });
    }
  }

  function schedule(ms: number) {
    if (closed) return;
    clearTimeout(timer);
    timer = setTimeout(run, ms);
    timer.unref?.();
  }

  function run() {
    if (ticking) {
      wakeAgain = true;
      return;
    }
    ticking = tick().finally(() => {
      ticking = undefined;
      const again = wakeAgain;
      wakeAgain = false;
      schedule(again ? 0 : settings.pollIntervalMs);
    });
  }

  /** Runs a round soon (after the current one), e.g. when an event was just written here. */
  function wake() {
    if (ticking) wakeAgain = true;
    else schedule(0);
  }

  return {
    start() {
      closed = false;
      schedule(0);
    },
    wake,
    /** One round now (tests and the CLI). */
    tick,
    async close() {
      closed = true;
      clearTimeout(timer);
      controller.abort();
      await ticking;
      await Promise.allSettled([...inFlight]);
    },
  };
}

export type DeliveryLoop = ReturnType<typeof createDeliveryLoop>;

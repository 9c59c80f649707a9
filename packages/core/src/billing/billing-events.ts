import type { Clock } from '../ports/clock.js';
import type { Logger } from '../ports/logger.js';
import type { BillingEvent, BillingEventType, BillingProvider } from '../ports/billing-provider.js';
import type { Store, StoreRepositories } from '../ports/store.js';

/** Applies one kind of billing event inside the transaction that records it as processed. */
export type BillingEventHandler<T extends BillingEventType = BillingEventType> = (
  tx: StoreRepositories,
  event: Extract<BillingEvent, { type: T }>,
) => Promise<void>;

export type BillingEventHandlers = { [T in BillingEventType]?: BillingEventHandler<T> };

export interface BillingEventProcessorDeps {
  store: Store;
  clock: Clock;
  logger: Logger;
  provider: BillingProvider;
}

export type BillingEventProcessor = ReturnType<typeof createBillingEventProcessor>;

/**
 * Processes provider events exactly once per event id: the id is recorded as processed in the
 * same transaction that applies the event, so a duplicate delivery changes nothing and a failed
 * application (the transaction rolls back, the webhook answers 500) is applied on redelivery.
 * Handlers are registered by the services that own the state (subscriptions, purchases).
 */
export function createBillingEventProcessor({ store, clock, logger, provider }: BillingEventProcessorDeps) {
  const handlers: BillingEventHandlers = {};

  async function process(event: BillingEvent): Promise<{ duplicate: boolean }> {
    return store.transaction(async (tx) => {
      const first = await tx.processedEvents.markProcessed(provider.name, event.id, event.type, clock.now().toISOString());
      if (!first) return { duplicate: true };
      const handler = handlers[event.type] as BillingEventHandler | undefined;
      if (handler) await handler(tx, event);
      else if (event.type !== 'ignored') logger.warn('No handler for billing event', { eventId: event.id, type: event.type });
      return { duplicate: false };
    });
  }

  return {
    /** Registers the handlers of a service (later registrations of a type replace earlier ones). */
    register(more: BillingEventHandlers): void {
      Object.assign(handlers, more);
    },
    /** Applies an event unless its id was processed before. */
    process,
    /**
     * `POST /api/billing/webhook`: verifies the signature over the raw bytes (400 if bad),
     * then processes the event once. Answers `{ received: true }` for duplicates and for
     * events Stratbox ignores, so the provider stops redelivering them.
     */
    async handleWebhook(rawBody: Uint8Array | undefined, headers: Record<string, string | string[] | undefined>): Promise<{ received: true }> {
      const event = await provider.parseWebhook(rawBody ?? new Uint8Array(), headers);
      const { duplicate } = await process(event);
      logger.info('Billing webhook', { eventId: event.id, type: event.type, duplicate });
      return { received: true };
    },
  };
}

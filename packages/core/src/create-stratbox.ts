import { createApiHandlers, type ApiHandlers } from './api/handlers.js';
import { createApiKeyService } from './auth/api-keys.js';
import type { Authenticator } from './ports/authenticator.js';
import { createSystemClock, type Clock } from './ports/clock.js';
import { createJsonLogger, type Logger } from './ports/logger.js';
import type { Store } from './ports/store.js';
import type { SourceChecker } from './strategies/source.js';
import { createStrategyService } from './strategies/strategy-service.js';
import { createMemoryStore } from './testing/memory-store.js';
import type { EventBus } from './ports/event-bus.js';
import { createInProcessEventBus } from './events/in-process-event-bus.js';
import { createChannelService, createStoreChannelResolvers, type ChannelResolvers, type ChannelService } from './events/channel-service.js';

export interface StratboxConfig {
  /** Where records live. Default: an in-memory store (lost on exit); use @stratbox/store-kysely to persist. */
  store?: Store;
  clock?: Clock;
  logger?: Logger;
  /** Who is calling. Default: Stratbox API keys (`Bearer sbx_...`) stored hashed in the store. */
  authenticate?: Authenticator;
  /** Extra check of strategy sources at create and update (e.g. syntax). */
  checkSource?: SourceChecker;
  /** Real-time events by channel. Default: in process (eventemitter3); closed by `close()`. */
  events?: EventBus;
  /** Who may subscribe to which channel. Default: deployments from the store; backtests not found. */
  channelResolvers?: Partial<ChannelResolvers>;
}

export interface Stratbox {
  readonly store: Store;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly authenticate: Authenticator;
  readonly strategies: ReturnType<typeof createStrategyService>;
  readonly users: Omit<ReturnType<typeof createApiKeyService>, 'authenticate'>;
  /** One handler per contract route, for adapters. */
  readonly api: ApiHandlers;
  /** Real-time events by channel (`backtest:<id>:progress`, `deployment:<id>:orders`). */
  readonly events: EventBus;
  /** Who may subscribe to which channel, and the snapshot a subscriber gets first. */
  readonly channels: ChannelService;
  /** Stops background work and closes the store. */
  close(): Promise<void>;
}

/** Assembles the Stratbox services from ports, with in-process defaults for what is not given. */
export function createStratbox(config: StratboxConfig = {}): Stratbox {
  const store = config.store ?? createMemoryStore();
  const clock = config.clock ?? createSystemClock();
  const logger = config.logger ?? createJsonLogger();
  const apiKeys = createApiKeyService({ store, clock });
  const strategies = createStrategyService({ store, clock, ...(config.checkSource ? { checkSource: config.checkSource } : {}) });
  const events = config.events ?? createInProcessEventBus({ onHandlerError: (error, channel) => logger.error('Event handler failed', { channel, error: error instanceof Error ? error.message : String(error) }) });
  const channels = createChannelService({ resolvers: createStoreChannelResolvers(store, config.channelResolvers) });
  let closed = false;
  return {
    store,
    clock,
    logger,
    authenticate: config.authenticate ?? apiKeys.authenticate,
    strategies,
    users: { createUser: apiKeys.createUser, createApiKey: apiKeys.createApiKey },
    api: createApiHandlers({ strategies }),
    events,
    channels,
    async close() {
      if (closed) return;
      closed = true;
      await events.close();
      await store.close();
    },
  };
}

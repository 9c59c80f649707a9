import { createApiHandlers, type ApiHandlers } from './api/handlers.js';
import { createApiKeyService } from './auth/api-keys.js';
import type { Authenticator } from './ports/authenticator.js';
import { createSystemClock, type Clock } from './ports/clock.js';
import { createJsonLogger, type Logger } from './ports/logger.js';
import type { Store } from './ports/store.js';
import type { SourceChecker } from './strategies/source.js';
import { createStrategyService } from './strategies/strategy-service.js';
import { createMemoryStore } from './testing/memory-store.js';

export interface StratboxConfig {
  /** Where records live. Default: an in-memory store (lost on exit); use @stratbox/store-kysely to persist. */
  store?: Store;
  clock?: Clock;
  logger?: Logger;
  /** Who is calling. Default: Stratbox API keys (`Bearer sbx_...`) stored hashed in the store. */
  authenticate?: Authenticator;
  /** Extra check of strategy sources at create and update (e.g. syntax). */
  checkSource?: SourceChecker;
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
  let closed = false;
  return {
    store,
    clock,
    logger,
    authenticate: config.authenticate ?? apiKeys.authenticate,
    strategies,
    users: { createUser: apiKeys.createUser, createApiKey: apiKeys.createApiKey },
    api: createApiHandlers({ strategies }),
    async close() {
      if (closed) return;
      closed = true;
      await store.close();
    },
  };
}

/** `@stratbox/core`: domain services, ports and the contract of Stratbox. */
export * from './contract/index.js';
export * from './errors/index.js';
export * from './ports/index.js';
export { createStratbox, type Stratbox, type StratboxConfig } from './create-stratbox.js';
export { createApiHandlers, type ApiHandlers, type ApiHandler, type HandlerContext } from './api/handlers.js';
export { createStrategyService, type StrategyService } from './strategies/strategy-service.js';
export { measureSource, type SourceChecker } from './strategies/source.js';
export { createApiKeyService, hashApiKey, bearerToken, type ApiKeyService, type ApiKeyServiceConfig } from './auth/api-keys.js';
export { newId } from './util/ids.js';
export { parseInput, describeIssues, type ValidationProblem } from './util/validate.js';
export { encodeCursor, decodeCursor, paginate } from './util/cursor.js';
export { createMemoryStore } from './testing/memory-store.js';
export type { EventBus, ChannelHandler, Unsubscribe } from './ports/event-bus.js';
export * from './events/index.js';
export * from './market-data/index.js';
export * from './ports/market-data.js';
export type { Job, JobHandler, JobQueue } from './ports/job-queue.js';
export { createInProcessJobQueue } from './queue/in-process-job-queue.js';

/** `@stratbox/queue-bullmq`: Stratbox's JobQueue on BullMQ, EventBus on Redis pub/sub, RateLimiter and ExchangeBans on Redis. */
export { createBullMqJobQueue, type BullMqJobQueueConfig } from './bullmq-job-queue.js';
export { createRedisEventBus, type RedisEventBusConfig } from './redis-event-bus.js';
export { createRedisExchangeBans, type RedisExchangeBans, type RedisExchangeBansConfig } from './redis-exchange-bans.js';
export { createRedisRateLimiter, type RedisRateLimiter, type RedisRateLimiterConfig } from './redis-rate-limiter.js';
export type { RedisConnection } from './connection.js';

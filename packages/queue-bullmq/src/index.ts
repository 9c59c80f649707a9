/** `@stratbox/queue-bullmq`: Stratbox's JobQueue on BullMQ and EventBus on Redis pub/sub. */
export { createBullMqJobQueue, type BullMqJobQueueConfig } from './bullmq-job-queue.js';
export { createRedisEventBus, type RedisEventBusConfig } from './redis-event-bus.js';
export type { RedisConnection } from './connection.js';

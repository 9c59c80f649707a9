import type { EventBus, JobQueue, Logger } from '@stratbox/core';
import { createBullMqJobQueue, createRedisEventBus } from '@stratbox/queue-bullmq';
import { runsJobs, type ScaleOutConfig } from './roles.js';

/**
 * The job queue and event bus: BullMQ and Redis pub/sub when REDIS_URL is set (shared by every
 * process of the service), else none (Stratbox's in-process defaults). On a worker, every job
 * logs one line with this process's pid when it ends, so operators see who ran what.
 */
export function openQueue(config: ScaleOutConfig, logger: Logger): { queue?: JobQueue; events?: EventBus } {
  if (!config.redisUrl) return {};
  const onError = (error: unknown) => logger.error('redis error', { error: error instanceof Error ? error.message : String(error) });
  const bullmq = createBullMqJobQueue({
    connection: config.redisUrl,
    prefix: config.redisPrefix,
    lockDurationMs: config.queueLockMs,
    stalledIntervalMs: Math.max(250, Math.round(config.queueLockMs / 2)),
    onError,
  });
  const events = createRedisEventBus({
    connection: config.redisUrl,
    prefix: config.redisPrefix,
    onHandlerError: (error, channel) => logger.error('event handler failed', { channel, error: error instanceof Error ? error.message : String(error) }),
  });
  if (!runsJobs(config.role)) return { queue: bullmq, events };
  const queue: JobQueue = {
    ...bullmq,
    process(name, handler, options) {
      bullmq.process(
        name,
        async (job, signal) => {
          const started = Date.now();
          try {
            await handler(job, signal);
          } finally {
            logger.info('job ran', { job: name, id: job.id, pid: process.pid, ms: Date.now() - started, ...(job.redelivered ? { redelivered: true } : {}) });
          }
        },
        options,
      );
    },
  };
  return { queue, events };
}

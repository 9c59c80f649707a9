import type { ServerEnv } from './env.js';

/** What one process of the example server does. */
export type Role = 'api' | 'worker' | 'all';

export interface ScaleOutConfig {
  /** `api`: HTTP + WebSocket, runs no jobs; `worker`: runs jobs, serves nothing; `all`: both (default). */
  role: Role;
  /** Redis for the shared job queue (BullMQ) and event bus; unset: in process (one process only). */
  redisUrl: string | undefined;
  /** Prefix of every Redis key and channel (default `stratbox`); nodes of one service share it. */
  redisPrefix: string;
  /** Backtests one worker process runs at once (default 2). */
  workerConcurrency: number;
  /** How long a worker's hold on a job lasts without renewal: a dead worker's job moves on after it (default 10 000 ms). */
  queueLockMs: number;
}

/** The scale-out settings, from `STRATBOX_ROLE`, `REDIS_URL`, `STRATBOX_REDIS_PREFIX`, `STRATBOX_WORKER_CONCURRENCY`, `STRATBOX_QUEUE_LOCK_MS`. */
export function readScaleOutConfig(env: ServerEnv): ScaleOutConfig {
  const role = env.STRATBOX_ROLE;
  const redisUrl = env.REDIS_URL;
  if (role !== 'all' && !redisUrl) {
    throw new Error(
      `STRATBOX_ROLE=${role} needs REDIS_URL: without it jobs and events stay inside one process, so an api process would queue backtests no worker sees`,
    );
  }
  return {
    role,
    redisUrl,
    redisPrefix: env.STRATBOX_REDIS_PREFIX,
    workerConcurrency: env.STRATBOX_WORKER_CONCURRENCY,
    queueLockMs: env.STRATBOX_QUEUE_LOCK_MS,
  };
}

export const servesHttp = (role: Role) => role !== 'worker';
export const runsJobs = (role: Role) => role !== 'api';

import { Queue, WaitingError, Worker, type Job as BullJob } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Job, JobHandler, JobQueue } from '@stratbox/core';
import { closeRedis, openRedis, type RedisConnection } from './connection.js';

export interface BullMqJobQueueConfig {
  /** Redis: a `redis://` URL or ioredis options. The queue opens (and closes) clients of its own. */
  connection: RedisConnection;
  /** Prefix of every Redis key and channel of this queue (default `stratbox`). Nodes that share jobs share it. */
  prefix?: string;
  /**
   * How long a worker's hold on a job lasts without renewal (default 10 000 ms). A worker renews
   * it every half of this while the job runs; when a worker dies, its jobs are handed out again
   * once this has passed and a stalled-job check ran.
   */
  lockDurationMs?: number;
  /** How often each worker looks for jobs whose worker died (default 5 000 ms). */
  stalledIntervalMs?: number;
  /**
   * How many times a job may be handed out again after its worker died before BullMQ fails it
   * (default 10). Keep it above the service's own limit (backtests give up after 2 attempts,
   * with a reason in the record), so that the record, not the queue, says why it stopped.
   */
  maxStalledCount?: number;
  /** Called with Redis and worker errors (default: ignored). Must not throw. */
  onError?: (error: unknown) => void;
}

interface JobData {
  payload: Record<string, unknown>;
  /** Added by a recovery scan for a run whose record says `running`. */
  redelivered?: boolean;
  /** The job's group (user), whose unfinished jobs set its priority. */
  group?: string;
}

/** BullMQ's lowest priority (the largest number it accepts). */
const MAX_PRIORITY = 2_097_152;
/** A group's set of unfinished jobs expires this long after its last job was added (a safety net for jobs BullMQ dropped). */
const GROUP_TTL_SECONDS = 7 * 24 * 3600;

interface Running {
  controller: AbortController;
  shuttingDown: boolean;
}

const SHUTDOWN = 'shutting down';

/**
 * The JobQueue port on BullMQ (Redis), for many API nodes and many worker nodes:
 * - one BullMQ queue per job name, so jobs of one name start in the order they were added;
 * - the job id is the BullMQ job id, so a job already waiting or running is not added twice;
 * - each `process` call is one BullMQ worker with that concurrency;
 * - a worker that dies (even by SIGKILL) stops renewing its lock; after `lockDurationMs` the
 *   stalled-job check of any live worker hands the job out again, with `redelivered: true`;
 * - a worker that shuts down aborts its handlers and puts their jobs back in the queue at once;
 * - `cancel(id)` removes a waiting job, or publishes the id on a Redis channel every worker
 *   node listens to, and the node running the job aborts its handler's signal;
 * - groups take turns by priority: a job's priority is how many unfinished jobs its group has
 *   (a Redis set per group, this job included), so a user's first job goes before another
 *   user's second. `perGroup` is not enforced across nodes (each sandbox pool still caps a
 *   tenant's runs per process).
 */
export function createBullMqJobQueue(config: BullMqJobQueueConfig): JobQueue & { readonly shared: true } {
  const prefix = config.prefix ?? 'stratbox';
  const namesKey = `${prefix}:job-names`;
  const cancelChannel = `${prefix}:job-cancel`;
  const report = (error: unknown) => {
    try {
      config.onError?.(error);
    } catch {
      // the error hook must not throw
    }
  };
  let client: Redis | undefined;
  let cancelSubscriber: Redis | undefined;
  let cancelSubscribed: Promise<unknown> | undefined;
  const queues = new Map<string, Queue>();
  const workers = new Map<string, Worker>();
  const running = new Map<string, Running>();
  let closed = false;

  function redis(): Redis {
    if (!client) {
      client = openRedis(config.connection, 'stratbox-queue');
      client.on('error', report);
    }
    return client;
  }

  function queueOf(name: string): Queue {
    let queue = queues.get(name);
    if (!queue) {
      queue = new Queue(name, { connection: redis(), prefix });
      queue.on('error', report);
      queues.set(name, queue);
    }
    return queue;
  }

  const groupKey = (name: string, group: string) => `${prefix}:job-group:${name}:${group}`;

  /** Forgets a finished or removed job in its group's set of unfinished jobs. */
  async function leaveGroup(name: string, data: JobData | undefined, id: string): Promise<void> {
    if (data?.group === undefined) return;
    await redis().srem(groupKey(name, data.group), id).catch(report);
  }

  function listenForCancels(): Promise<unknown> {
    if (!cancelSubscribed) {
      cancelSubscriber = openRedis(config.connection, 'stratbox-queue-cancel');
      cancelSubscriber.on('error', report);
      cancelSubscriber.on('message', (channel: string, id: string) => {
        if (channel !== cancelChannel) return;
        running.get(id)?.controller.abort(new Error('cancelled'));
      });
      cancelSubscribed = cancelSubscriber.subscribe(cancelChannel);
    }
    return cancelSubscribed;
  }

  return {
    shared: true,

    async enqueue(job: Job): Promise<void> {
      if (closed) throw new Error('Job queue is closed');
      await redis().sadd(namesKey, job.name);
      const data: JobData = {
        payload: job.payload,
        ...(job.redelivered ? { redelivered: true } : {}),
        ...(job.group === undefined ? {} : { group: job.group }),
      };
      let priority: number | undefined;
      if (job.group !== undefined) {
        const key = groupKey(job.name, job.group);
        const [, , unfinished] = (await redis().multi().sadd(key, job.id).expire(key, GROUP_TTL_SECONDS).scard(key).exec()) ?? [];
        priority = Math.min(MAX_PRIORITY, Math.max(1, Number(unfinished?.[1] ?? 1)));
      }
      // BullMQ adds nothing when a job with this id exists (waiting, active or delayed)
      await queueOf(job.name).add(job.name, data, { jobId: job.id, removeOnComplete: true, removeOnFail: true, ...(priority ? { priority } : {}) });
    },

    process(name: string, handler: JobHandler, options: { concurrency: number }): void {
      if (closed) throw new Error('Job queue is closed');
      if (workers.has(name)) throw new Error(`Jobs named ${name} already have a handler`);
      const worker = new Worker<JobData>(
        name,
        async (bullJob: BullJob<JobData>, token?: string) => {
          const id = bullJob.id!;
          const entry: Running = { controller: new AbortController(), shuttingDown: false };
          running.set(id, entry);
          if (closed) {
            entry.shuttingDown = true;
            entry.controller.abort(new Error(SHUTDOWN));
          }
          try {
            const redelivered = bullJob.data.redelivered === true || bullJob.attemptsStarted > 1 || bullJob.stalledCounter > 0;
            await handler({ name, id, payload: bullJob.data.payload ?? {}, ...(redelivered ? { redelivered: true } : {}) }, entry.controller.signal);
          } catch {
            // handlers record their own failures; a throw must not fail the BullMQ job
          } finally {
            running.delete(id);
          }
          if (!entry.shuttingDown) await leaveGroup(name, bullJob.data, id);
          if (entry.shuttingDown && token) {
            // back to the queue now, for another worker, rather than after the lock expired
            await bullJob.moveToWait(token);
            throw new WaitingError();
          }
        },
        {
          connection: redis(),
          prefix,
          concurrency: Math.max(1, options.concurrency),
          autorun: false,
          lockDuration: config.lockDurationMs ?? 10_000,
          stalledInterval: config.stalledIntervalMs ?? 5_000,
          maxStalledCount: config.maxStalledCount ?? 10,
          removeOnComplete: { count: 0 },
          removeOnFail: { count: 0 },
        },
      );
      worker.on('error', report);
      // a worker that lost its hold on a job (Redis unreachable too long) stops running it:
      // another worker may have it by now
      worker.on('lockRenewalFailed', (ids: string[]) => {
        for (const id of ids) running.get(id)?.controller.abort(new Error('lost the job lock'));
      });
      workers.set(name, worker);
      void Promise.all([listenForCancels(), redis().sadd(namesKey, name)]).then(() => {
        if (!closed) void worker.run().catch(report);
      }, report);
    },

    async cancel(id: string): Promise<boolean> {
      if (closed) return false;
      const names = new Set([...(await redis().smembers(namesKey)), ...queues.keys()]);
      for (const name of names) {
        const job = await queueOf(name).getJob(id);
        if (!job) continue;
        const state = await job.getState();
        if (state === 'active') {
          await redis().publish(cancelChannel, id);
          return true;
        }
        if (state === 'waiting' || state === 'delayed' || state === 'prioritized' || state === 'waiting-children') {
          try {
            await job.remove();
            await leaveGroup(name, job.data as JobData, id);
            return true;
          } catch {
            // it became active meanwhile (locked): signal the worker that took it
            await redis().publish(cancelChannel, id);
            return true;
          }
        }
      }
      return false;
    },

    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      for (const entry of running.values()) {
        entry.shuttingDown = true;
        entry.controller.abort(new Error(SHUTDOWN));
      }
      await Promise.allSettled([...workers.values()].map((w) => w.close()));
      await Promise.allSettled([...queues.values()].map((q) => q.close()));
      await Promise.all([cancelSubscriber, client].filter((c): c is Redis => !!c).map(closeRedis));
    },
  };
}

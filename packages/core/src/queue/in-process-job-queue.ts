import type { Job, JobHandler, JobQueue } from '../ports/job-queue.js';
import { createFairQueue, type FairQueue } from '../util/fair-queue.js';

interface Worker {
  handler: JobHandler;
  concurrency: number;
  perGroup: number;
  running: Map<string, { controller: AbortController; group: string }>;
  waiting: FairQueue<Job>;
}

/** The group of a job without one: all such jobs share one line. */
const NO_GROUP = '';

/**
 * The in-process JobQueue: per job name, groups (users) take turns and each group's jobs start
 * in the order they were added; bounded concurrency, an optional cap per group, cancel by id.
 * Jobs live in memory, so a crash loses waiting jobs; the services recover them from the Store
 * at start.
 */
export function createInProcessJobQueue(): JobQueue {
  const workers = new Map<string, Worker>();
  const pendingBeforeProcess = new Map<string, Job[]>();
  const settled = new Set<Promise<void>>();
  let closed = false;

  const known = (id: string) =>
    [...workers.values()].some((w) => w.running.has(id) || w.waiting.find((j) => j.id === id) !== undefined) ||
    [...pendingBeforeProcess.values()].some((list) => list.some((j) => j.id === id));

  function runningOf(worker: Worker, group: string): number {
    let n = 0;
    for (const r of worker.running.values()) if (r.group === group) n++;
    return n;
  }

  function pump(worker: Worker) {
    while (!closed && worker.running.size < worker.concurrency) {
      const job = worker.waiting.take((group) => runningOf(worker, group) < worker.perGroup);
      if (!job) return;
      const controller = new AbortController();
      worker.running.set(job.id, { controller, group: job.group ?? NO_GROUP });
      const run = Promise.resolve()
        .then(() => worker.handler(job, controller.signal))
        .catch(() => undefined) // handlers record their own failures; a throw must not stop the queue
        .finally(() => {
          worker.running.delete(job.id);
          settled.delete(run);
          pump(worker);
        });
      settled.add(run);
    }
  }

  return {
    async enqueue(job) {
      if (closed) throw new Error('Job queue is closed');
      if (known(job.id)) return;
      const worker = workers.get(job.name);
      if (!worker) {
        pendingBeforeProcess.set(job.name, [...(pendingBeforeProcess.get(job.name) ?? []), job]);
        return;
      }
      worker.waiting.push(job.group ?? NO_GROUP, job);
      pump(worker);
    },
    process(name, handler, { concurrency, perGroup }) {
      if (workers.has(name)) throw new Error(`Jobs named ${name} already have a handler`);
      const worker: Worker = {
        handler,
        concurrency: Math.max(1, concurrency),
        perGroup: Math.max(1, perGroup ?? Infinity),
        running: new Map(),
        waiting: createFairQueue<Job>(),
      };
      for (const job of pendingBeforeProcess.get(name) ?? []) worker.waiting.push(job.group ?? NO_GROUP, job);
      pendingBeforeProcess.delete(name);
      workers.set(name, worker);
      pump(worker);
    },
    async cancel(id) {
      for (const worker of workers.values()) {
        const waiting = worker.waiting.find((j) => j.id === id);
        if (waiting && worker.waiting.remove(waiting)) return true;
        const running = worker.running.get(id);
        if (running) {
          running.controller.abort(new Error('cancelled'));
          return true;
        }
      }
      for (const list of pendingBeforeProcess.values()) {
        const index = list.findIndex((j) => j.id === id);
        if (index >= 0) {
          list.splice(index, 1);
          return true;
        }
      }
      return false;
    },
    async close() {
      closed = true;
      for (const worker of workers.values()) {
        worker.waiting.drain();
        for (const { controller } of worker.running.values()) controller.abort(new Error('shutting down'));
      }
      await Promise.allSettled([...settled]);
    },
  };
}

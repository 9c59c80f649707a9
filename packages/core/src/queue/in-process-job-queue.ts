import type { Job, JobHandler, JobQueue } from '../ports/job-queue.js';

interface Worker {
  handler: JobHandler;
  concurrency: number;
  running: Map<string, AbortController>;
  waiting: Job[];
}

/**
 * The in-process JobQueue: FIFO per job name, bounded concurrency, cancel by id. Jobs live in
 * memory, so a crash loses waiting jobs; the services recover them from the Store at start.
 */
export function createInProcessJobQueue(): JobQueue {
  const workers = new Map<string, Worker>();
  const pendingBeforeProcess = new Map<string, Job[]>();
  const settled = new Set<Promise<void>>();
  let closed = false;

  const known = (id: string) =>
    [...workers.values()].some((w) => w.running.has(id) || w.waiting.some((j) => j.id === id)) ||
    [...pendingBeforeProcess.values()].some((list) => list.some((j) => j.id === id));

  function pump(worker: Worker) {
    while (!closed && worker.running.size < worker.concurrency && worker.waiting.length > 0) {
      const job = worker.waiting.shift()!;
      const controller = new AbortController();
      worker.running.set(job.id, controller);
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
      worker.waiting.push(job);
      pump(worker);
    },
    process(name, handler, { concurrency }) {
      if (workers.has(name)) throw new Error(`Jobs named ${name} already have a handler`);
      const worker: Worker = { handler, concurrency: Math.max(1, concurrency), running: new Map(), waiting: pendingBeforeProcess.get(name) ?? [] };
      pendingBeforeProcess.delete(name);
      workers.set(name, worker);
      pump(worker);
    },
    async cancel(id) {
      for (const worker of workers.values()) {
        const index = worker.waiting.findIndex((j) => j.id === id);
        if (index >= 0) {
          worker.waiting.splice(index, 1);
          return true;
        }
        const running = worker.running.get(id);
        if (running) {
          running.abort(new Error('cancelled'));
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
        worker.waiting.length = 0;
        for (const controller of worker.running.values()) controller.abort(new Error('shutting down'));
      }
      await Promise.allSettled([...settled]);
    },
  };
}

import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import type { Job, JobQueue } from '@stratbox/core';
import { createBullMqJobQueue } from './bullmq-job-queue.js';
import { deleteKeys, REDIS_URL, requireRedis, uniquePrefix } from './testing/test-redis.js';

const available = await requireRedis('queue-bullmq: BullMQ job queue');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const until = async (check: () => boolean, ms = 10_000) => {
  for (const end = Date.now() + ms; !check(); ) {
    if (Date.now() > end) throw new Error('timed out');
    await sleep(10);
  }
};
/** The lock duration of the cluster that rescues a SIGKILLed worker's job. */
const LOCK_MS = 1000;
const job = (id: string, name = 'work'): Job => ({ name, id, payload: { id } });
let seq = 0;
const nextId = (tag: string) => `${tag}_${Date.now().toString(36)}_${seq++}`;

describe.runIf(available)('the BullMQ job queue (JobQueue port on Redis)', () => {
  const prefixes: string[] = [];
  const queues: JobQueue[] = [];
  /** Nodes that share jobs: same Redis, same prefix. */
  const cluster = (lockDurationMs = 1000) => {
    const prefix = uniquePrefix('jobs');
    prefixes.push(prefix);
    return {
      prefix,
      node: () => {
        const q = createBullMqJobQueue({ connection: REDIS_URL, prefix, lockDurationMs, stalledIntervalMs: lockDurationMs / 2 });
        queues.push(q);
        return q;
      },
    };
  };
  afterAll(async () => {
    await Promise.allSettled(queues.map((q) => q.close()));
    for (const prefix of prefixes) await deleteKeys(prefix);
  });

  it('runs a job added on one node on a worker of another, in FIFO order, never adding an id twice', async () => {
    const c = cluster();
    const api = c.node();
    const worker = c.node();
    const ids = Array.from({ length: 8 }, () => nextId('fifo'));
    for (const id of ids) await api.enqueue(job(id));
    await api.enqueue(job(ids[0]!)); // already waiting: not added again
    const ran: string[] = [];
    worker.process(
      'work',
      async (j) => {
        ran.push(j.id);
        expect(j.payload).toEqual({ id: j.id });
        expect(j.redelivered).toBeUndefined();
      },
      { concurrency: 1 },
    );
    await until(() => ran.length === ids.length);
    await sleep(200);
    expect(ran).toEqual(ids);
  });

  it("lets groups take turns: one user's many waiting jobs do not hold back another user's one", async () => {
    const c = cluster();
    const api = c.node();
    const worker = c.node();
    const a = Array.from({ length: 6 }, () => nextId('a'));
    const b = nextId('b');
    for (const id of a) await api.enqueue({ ...job(id), group: 'user-a' });
    await api.enqueue({ ...job(b), group: 'user-b' });
    const ran: string[] = [];
    worker.process('work', async (j) => void ran.push(j.id), { concurrency: 1 });
    await until(() => ran.length === a.length + 1);
    expect(ran.indexOf(b)).toBeLessThanOrEqual(1);
    expect(ran.filter((id) => id !== b)).toEqual(a);
  });

  it('runs at most `concurrency` jobs at once per worker, and spreads them over workers', async () => {
    const c = cluster();
    const api = c.node();
    const running = [0, 0];
    const peak = [0, 0];
    const done = [0, 0];
    [c.node(), c.node()].forEach((node, n) =>
      node.process(
        'work',
        async () => {
          running[n]!++;
          peak[n] = Math.max(peak[n]!, running[n]!);
          await sleep(60);
          running[n]!--;
          done[n]!++;
        },
        { concurrency: 2 },
      ),
    );
    for (let i = 0; i < 24; i++) await api.enqueue(job(nextId('conc')));
    await until(() => done[0]! + done[1]! === 24);
    expect(peak[0]).toBeLessThanOrEqual(2);
    expect(peak[1]).toBeLessThanOrEqual(2);
    expect(done[0]).toBeGreaterThan(0);
    expect(done[1]).toBeGreaterThan(0);
  });

  it('cancel removes a waiting job, aborts a running one on the node that runs it, and is false for an unknown id', async () => {
    const c = cluster();
    const api = c.node();
    const worker = c.node();
    const first = nextId('run');
    const second = nextId('wait');
    const ran: string[] = [];
    let aborted: unknown;
    worker.process(
      'work',
      (j, signal) => {
        ran.push(j.id);
        return new Promise<void>((resolve) => {
          if (j.id !== first) return resolve();
          signal.addEventListener('abort', () => {
            aborted = signal.reason;
            resolve();
          });
        });
      },
      { concurrency: 1 },
    );
    await api.enqueue(job(first));
    await until(() => ran.includes(first));
    await api.enqueue(job(second)); // waits behind `first` (concurrency 1)
    expect(await api.cancel(second)).toBe(true);
    expect(await api.cancel(first)).toBe(true); // from the API node, reaches the worker node
    await until(() => aborted !== undefined);
    expect((aborted as Error).message).toBe('cancelled');
    await sleep(300);
    expect(ran).toEqual([first]); // the cancelled waiting job never ran
    expect(await api.cancel(nextId('nothing'))).toBe(false);
  });

  it('hands a job out again, marked redelivered, when its worker is SIGKILLed mid-job', async () => {
    const c = cluster(LOCK_MS);
    const api = c.node();
    const child = spawn(
      process.execPath,
      [
        '--conditions=@stratbox/source',
        '--import',
        'tsx',
        fileURLToPath(new URL('./testing/hold-job.ts', import.meta.url)),
        REDIS_URL,
        c.prefix,
        String(LOCK_MS),
      ],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    try {
      await until(() => out.includes('ready'), 20_000);
      const id = nextId('stall');
      await api.enqueue({ name: 'hold', id, payload: {} });
      await until(() => out.includes(`took ${id}`));
      child.kill('SIGKILL');
      const rescuer = c.node();
      const rescued: Job[] = [];
      rescuer.process('hold', async (j) => void rescued.push(j), { concurrency: 1 });
      // Handed out once its lock (1 s) lapses and a stall check runs: 15x that, still half of BullMQ's default 30 s lock.
      await until(() => rescued.length === 1, 15 * LOCK_MS);
      expect(rescued[0]).toMatchObject({ id, redelivered: true });
    } finally {
      child.kill('SIGKILL');
    }
  }, 60_000);

  it('puts running jobs back on close, for another worker, marked redelivered', async () => {
    const c = cluster(5000);
    const api = c.node();
    const leaving = c.node();
    const id = nextId('shutdown');
    let started = false;
    let signalled = false;
    leaving.process(
      'work',
      (_j, signal) => {
        started = true;
        return new Promise<void>((resolve) => signal.addEventListener('abort', () => ((signalled = true), resolve())));
      },
      { concurrency: 1 },
    );
    await api.enqueue(job(id));
    await until(() => started);
    await leaving.close();
    expect(signalled).toBe(true);
    const other = c.node();
    const got: Job[] = [];
    other.process('work', async (j) => void got.push(j), { concurrency: 1 });
    await until(() => got.length === 1, 3000); // well before the 5 s lock would expire
    expect(got[0]).toMatchObject({ id, redelivered: true });
  });
});

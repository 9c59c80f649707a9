import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { createProcessPool, type ProcessPool, type ProcessPoolOptions } from './process-pool.js';
import { SandboxError } from './sandbox-error.js';
import type { TestChildJob } from './testing/test-child.js';

type Lane = 'quick' | 'slow';

const worker = () => ({
  path: fileURLToPath(new URL('./testing/test-child.ts', import.meta.url)),
  execArgv: ['--import', 'tsx', '--conditions=@stratbox/source'],
});

function pool(overrides: Partial<ProcessPoolOptions<Lane>> = {}): ProcessPool<Lane> {
  return createProcessPool<Lane>({
    worker,
    lanes: { quick: { size: 1 }, slow: { size: 1, maxRunningPerTenant: 1 } },
    rssLimitBytes: 1024 * 1024 * 1024,
    maxOldSpaceSizeMb: 256,
    progressIntervalMs: 1000,
    cancelGraceMs: 300,
    rssPollMs: 50,
    ...overrides,
  });
}

const run = (
  p: ProcessPool<Lane>,
  lane: Lane,
  job: TestChildJob,
  extra: { wallTimeMs?: number; signal?: AbortSignal; tenant?: string; background?: boolean } = {},
) => p.run({ lane, payload: job, wallTimeMs: extra.wallTimeMs ?? 60_000, signal: extra.signal, tenant: extra.tenant, background: extra.background });

async function rejection(promise: Promise<unknown>): Promise<SandboxError> {
  const outcome = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  if (!(outcome instanceof SandboxError)) throw new Error(`expected a SandboxError, got ${String(outcome)}`);
  return outcome;
}

/** CPU time (ms) of a process, from /proc (Linux). */
function cpuMsOf(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return 0;
  }
}

async function until(check: () => boolean, what: string, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('process pool (generic: opaque jobs in child processes)', () => {
  const p = pool();
  afterAll(() => p.close());

  it('sends a payload to the child program and resolves with its output as sent, reusing the child', async () => {
    const value = { text: 'hi', numbers: new Float64Array([1.5, 2.5]) };
    const first = await run(p, 'quick', { kind: 'echo', value });
    expect(first.output).toEqual({ value, pid: expect.any(Number) });
    expect((first.output as { value: { numbers: unknown } }).value.numbers).toBeInstanceOf(Float64Array);
    expect(first.peakRssBytes).toBeGreaterThan(0);
    const second = await run(p, 'quick', { kind: 'echo', value: 2 });
    expect((second.output as { pid: number }).pid).toBe((first.output as { pid: number }).pid);
  }, 60_000);

  it('reports progress at most once per interval, and always the final report', async () => {
    const reports: [number, number][] = [];
    await p.run({
      lane: 'quick',
      payload: { kind: 'progress', steps: 500 } satisfies TestChildJob,
      wallTimeMs: 60_000,
      onProgress: (d, t) => reports.push([d, t]),
    });
    expect(reports.at(-1)).toEqual([500, 500]);
    expect(reports.length).toBeLessThanOrEqual(3);
  }, 60_000);

  it("runs a lane's job while the other lane's only child is stuck", async () => {
    const controller = new AbortController();
    const stuck = run(p, 'slow', { kind: 'hang' }, { signal: controller.signal });
    await until(() => p.stats().busy === 1, 'the stuck job to start');
    await expect(run(p, 'quick', { kind: 'echo', value: 'still served' })).resolves.toMatchObject({ output: { value: 'still served' } });
    controller.abort();
    const error = await rejection(stuck);
    expect(error.code).toBe('CANCELLED');
  }, 60_000);

  it('passes on the error a job failed with, and replaces a child that asked to be recycled', async () => {
    const before = (await run(p, 'quick', { kind: 'echo', value: 0 })).output as { pid: number };
    const error = await rejection(run(p, 'quick', { kind: 'fail', code: 'MEMORY_LIMIT', message: 'too big' }));
    expect(error).toMatchObject({ code: 'MEMORY_LIMIT', message: 'too big' });
    const after = (await run(p, 'quick', { kind: 'echo', value: 0 })).output as { pid: number };
    expect(after.pid).not.toBe(before.pid);
  }, 60_000);

  it('stops a job cooperatively on cancel, and kills one that never yields (CPU time read from the system)', async () => {
    const cooperative = new AbortController();
    const spin = run(p, 'quick', { kind: 'spin' }, { signal: cooperative.signal });
    await until(() => p.stats().busy === 1, 'the spin to start');
    cooperative.abort();
    expect(await rejection(spin)).toMatchObject({ code: 'CANCELLED', message: 'The spin was cancelled' });

    const hard = new AbortController();
    const hang = run(p, 'quick', { kind: 'hang' }, { signal: hard.signal });
    await until(() => p.stats().busy === 1, 'the hang to start');
    const linux = process.platform === 'linux';
    if (linux) {
      // let it burn measurable CPU: wait until one child's CPU time grew by 150 ms
      const start = new Map(p.stats().pids.map((pid) => [pid, cpuMsOf(pid)]));
      await until(() => p.stats().pids.some((pid) => cpuMsOf(pid) - (start.get(pid) ?? 0) >= 150), 'the hang to use CPU');
    }
    hard.abort();
    const error = await rejection(hang);
    expect(error).toMatchObject({ code: 'CANCELLED', message: 'The job was cancelled' });
    if (linux) expect(error.cpuMs).toBeGreaterThanOrEqual(100);
    await expect(run(p, 'quick', { kind: 'echo', value: 'next' })).resolves.toMatchObject({ output: { value: 'next' } });
  }, 60_000);

  it('kills a job past its wall-clock time with TIMEOUT, and a dead child fails its job with CRASHED or the lane’s own error', async () => {
    const timeout = await rejection(run(p, 'quick', { kind: 'hang' }, { wallTimeMs: 500 }));
    expect(timeout).toMatchObject({ code: 'TIMEOUT', message: expect.stringMatching(/500 ms wall-clock/) });
    const crashed = await rejection(run(p, 'quick', { kind: 'exit', code: 3 }));
    expect(crashed).toMatchObject({ code: 'CRASHED', message: expect.stringMatching(/exited with code 3/) });

    const own = pool({ lanes: { quick: { size: 1, lostJob: () => new SandboxError('INVALID_STRATEGY', 'the input killed it') }, slow: { size: 1 } } });
    try {
      expect(await rejection(run(own, 'quick', { kind: 'exit', code: 3 }))).toMatchObject({ code: 'INVALID_STRATEGY', message: 'the input killed it' });
    } finally {
      await own.close();
    }
  }, 60_000);

  it('lets one tenant run at most the lane cap, others taking turns; close rejects what is left with POOL_CLOSED', async () => {
    const capped = pool({ lanes: { quick: { size: 1 }, slow: { size: 2, maxRunningPerTenant: 1 } } });
    const a1 = new AbortController();
    const first = run(capped, 'slow', { kind: 'spin' }, { tenant: 'a', signal: a1.signal });
    const second = run(capped, 'slow', { kind: 'echo', value: 'a2' }, { tenant: 'a' });
    await until(() => capped.stats().busy === 1, 'the first job of a to start');
    // a's second job waits for a's first, while b's job takes the other child
    await expect(run(capped, 'slow', { kind: 'echo', value: 'b1' }, { tenant: 'b' })).resolves.toMatchObject({ output: { value: 'b1' } });
    expect(capped.stats().queued).toBe(1);
    a1.abort();
    await rejection(first);
    await expect(second).resolves.toMatchObject({ output: { value: 'a2' } });

    const left = rejection(run(capped, 'slow', { kind: 'hang' }, { tenant: 'c' }));
    await until(() => capped.stats().busy === 1, 'the last job to start');
    await capped.close();
    expect(await left).toMatchObject({ code: 'POOL_CLOSED' });
    await expect(run(capped, 'quick', { kind: 'echo', value: 1 })).rejects.toMatchObject({ code: 'POOL_CLOSED' });
  }, 60_000);

  it('background jobs one after another reuse the children: none is started per job, and the one over the size stops after its idle time', async () => {
    const one = pool({ lanes: { quick: { size: 1 }, slow: { size: 1 } }, surplusIdleMs: 1500 });
    try {
      const pids = new Set<number>();
      for (let k = 0; k < 8; k++) {
        const { output } = await run(one, 'slow', { kind: 'echo', value: k }, { tenant: 'platform', background: true });
        pids.add((output as { pid: number }).pid);
      }
      // The child that ran the first job, and the one started ahead for a user meanwhile: no more.
      expect(pids.size).toBeLessThanOrEqual(2);
      expect(one.stats().children).toBeLessThanOrEqual(2);
      // Nothing more runs: the child over the size stops once it has had no job for its idle time.
      await until(() => one.stats().children === 1, 'the child over the size to stop');
    } finally {
      await one.close();
    }
  }, 60_000);

  it("never makes a user wait behind background work plus a stranger's run, and runs background work on what users leave idle", async () => {
    const two = pool({ lanes: { quick: { size: 1 }, slow: { size: 2, maxRunningPerTenant: 1 } } });
    const platform = { tenant: 'platform', background: true };
    const ended: string[] = [];
    const note = <T>(name: string, promise: Promise<T>) =>
      promise.then(
        (value) => {
          ended.push(name);
          return value;
        },
        (error: unknown) => {
          ended.push(name);
          throw error;
        },
      );
    try {
      // users idle: the platform's work takes a child
      const stopPlatform = new AbortController();
      const verifying = note('verifying', run(two, 'slow', { kind: 'spin' }, { ...platform, signal: stopPlatform.signal }));
      await until(() => two.stats().busy === 1, 'the platform job to start');
      // a stranger's run takes the other child
      const stopA = new AbortController();
      const a1 = note('a1', run(two, 'slow', { kind: 'spin' }, { tenant: 'a', signal: stopA.signal }));
      await until(() => two.stats().busy === 2, "a's run to start");
      // more platform work and more of a's runs wait (the platform keeps within the size, a is at its cap)
      const queuedPlatform = note('verified', run(two, 'slow', { kind: 'echo', value: 'verified' }, platform));
      const a2 = note('a2', run(two, 'slow', { kind: 'echo', value: 'a2' }, { tenant: 'a' }));
      // a third child is started ahead for the users' next run, and nobody waiting may take it
      expect(two.stats()).toMatchObject({ busy: 2, queued: 2, children: 3 });

      // b's run does not wait for either: it gets a child over the size
      const startedAt = performance.now();
      await expect(run(two, 'slow', { kind: 'echo', value: 'b1' }, { tenant: 'b' })).resolves.toMatchObject({ output: { value: 'b1' } });
      const waitedMs = performance.now() - startedAt;
      expect(two.stats()).toMatchObject({ busy: 2, queued: 2, children: 3 });
      expect(ended).toEqual([]);

      // with both users' children busy, a user's run waits, and goes before the platform's work
      const stopB = new AbortController();
      const b2 = note('b2', run(two, 'slow', { kind: 'spin' }, { tenant: 'b', signal: stopB.signal }));
      await until(() => two.stats().busy === 3, "b's second run to start");
      const c1 = note('c1', run(two, 'slow', { kind: 'echo', value: 'c1' }, { tenant: 'c' }));
      // the platform job ends: its child is not the users' to keep, and nobody else may start now
      stopPlatform.abort();
      expect(await rejection(verifying)).toMatchObject({ code: 'CANCELLED' });
      await until(() => two.stats().children === 2, 'the child over the size to stop');
      expect(two.stats()).toMatchObject({ busy: 2, queued: 3 });
      // a's run ends: c's and then a's next run take its child before the platform's work does
      stopA.abort();
      await rejection(a1);
      await expect(c1).resolves.toMatchObject({ output: { value: 'c1' } });
      await expect(a2).resolves.toMatchObject({ output: { value: 'a2' } });
      // a user's child is idle (b's run still going): the platform's work completes
      await expect(queuedPlatform).resolves.toMatchObject({ output: { value: 'verified' } });
      expect(ended).toEqual(['verifying', 'a1', 'c1', 'a2', 'verified']);
      expect(two.stats()).toMatchObject({ busy: 1, queued: 0 });
      await until(() => two.stats().children <= 2, 'the children over the size to stop');
      stopB.abort();
      await rejection(b2);
      console.info(`b's run waited ${Math.round(waitedMs)} ms (on the child started ahead) while a's run and the platform's held both children`);
    } finally {
      await two.close();
    }
  }, 120_000);
});

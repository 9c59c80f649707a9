import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StratboxClient } from '@stratbox/client';
import { startTestService, type TestService } from './harness/in-process.js';
import { waitFor } from './harness/deferred.js';
import { ENDED, LOOP, LOOPS, runSmallBacktest, SMALL, TWO_WEEKS } from './harness/noisy-neighbour.js';

/**
 * No wait behind a stranger's run with the default settings (issue #28): no sandbox option at
 * all, so the default pool (at least two backtest children, one run per user at a time) and the
 * default 30 s CPU budget. User A queues ten endless loops; once one of them burns CPU in a
 * sandbox child, user B creates a two-week `1h` backtest. B's completes within 15 s of its
 * create (from the API's createdAt and finishedAt) while A's loop is still running, and that
 * loop ends in TIMEOUT and is metered. A's other runs are cancelled, so the test holds the suite
 * for about one budget, not ten.
 */
const DEFAULT_BUDGET_MS = 30_000;

const TICKS_PER_SECOND = 100; // USER_HZ, the unit of /proc/<pid>/stat times

/** CPU milliseconds used by each child process of this one (the sandbox children), from /proc. */
function childCpuMs(): number[] {
  const out: number[] = [];
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[1]) !== process.pid) continue; // ppid
      out.push(((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND);
    } catch {
      // the process ended while we read it
    }
  }
  return out;
}

describe.runIf(process.platform === 'linux')('a noisy neighbour, on the default pool and budget', () => {
  let service: TestService;
  let a: StratboxClient;
  let b: StratboxClient;
  const queued: string[] = [];

  beforeAll(async () => {
    service = await startTestService(); // no `sandbox` option: the defaults under test
    a = (await service.newUser('noisy')).client;
    b = (await service.newUser('quiet')).client;
  });
  afterAll(async () => {
    // A's runs would otherwise hold the close for up to ten budgets
    await Promise.all(queued.map((id) => a.backtests.cancel({ params: { id } }).catch(() => undefined)));
    await service.close();
  });

  it("runs another user's two-week backtest within 15 s of its create while one user's ten loops are queued", { timeout: 180_000 }, async () => {
    const small = await b.strategies.create({ body: { name: 'small', source: SMALL } });
    const loop = await a.strategies.create({ body: { name: 'loop', source: LOOP } });
    for (let i = 0; i < LOOPS; i++) queued.push((await a.backtests.create({ body: { strategyId: loop.id, ...TWO_WEEKS } })).id);

    // A's first loop is in a sandbox child, spinning (no other child of this process burns a second)
    await waitFor("one of A's loops to spin in a sandbox child", () => childCpuMs().some((ms) => ms >= 1_000), 60_000, 100);
    const running = (await a.backtests.list({ query: { status: 'running' } })).backtests;
    expect(running).toHaveLength(1);
    const first = running[0]!.id;

    const { done, waitedMs } = await runSmallBacktest(b, small.id);
    expect(done.status).toBe('completed');
    expect(waitedMs).toBeLessThan(15_000);
    // B did not wait for A's loop, nor for A's queue
    expect((await a.backtests.get({ params: { id: first } })).status).toBe('running');
    expect((await a.backtests.list({ query: { status: 'queued' } })).backtests.length).toBeGreaterThanOrEqual(LOOPS - 2);

    // A's loop is still metered by the default budget: it ends in TIMEOUT, its CPU counted
    const ended = await waitFor(
      "A's first loop to end",
      async () => {
        const r = await a.backtests.get({ params: { id: first } });
        return ENDED.includes(r.status) ? r : null;
      },
      DEFAULT_BUDGET_MS + 60_000,
      250,
    );
    expect(ended.status).toBe('failed');
    expect(ended.error?.code).toBe('TIMEOUT');
    expect(Date.parse(ended.finishedAt!)).toBeGreaterThan(Date.parse(done.finishedAt!));
    expect((await a.billing.usage()).compute.used).toBeGreaterThanOrEqual(DEFAULT_BUDGET_MS / 1000);
  });
});

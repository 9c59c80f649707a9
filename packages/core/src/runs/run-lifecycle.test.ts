import { describe, expect, it } from 'vitest';
import { newBacktestRecord } from '../backtests/new-backtest-record.js';
import { createSystemClock } from '../ports/clock.js';
import type { Job, JobQueue } from '../ports/job-queue.js';
import type { BacktestRecord } from '../ports/store.js';
import { createMemoryStore } from '../testing/memory-store.js';
import { createRunLifecycle, interruptedMessage } from './run-lifecycle.js';

const JOB = 'test.run';

/** A queue that only records what is added: the lifecycle's recovery is what is tested. */
function recordingQueue(): JobQueue & { added: Job[] } {
  const added: Job[] = [];
  return {
    added,
    enqueue: async (job) => {
      added.push(job);
    },
    process: () => undefined,
    cancel: async () => false,
    close: async () => undefined,
  };
}

async function setUp(shared = false) {
  const store = createMemoryStore();
  const queue = Object.assign(recordingQueue(), { shared });
  const givenUp: BacktestRecord[] = [];
  const lifecycle = createRunLifecycle({
    records: store.backtests,
    queue,
    clock: createSystemClock(),
    jobName: JOB,
    maxAttempts: 2,
    restartPatch: { progress: 0, processedBars: 0 },
    giveUp: async (r: BacktestRecord) => {
      givenUp.push(r);
      await store.backtests.transition(r.id, ['running'], { status: 'failed', error: { code: 'INTERRUPTED', message: interruptedMessage(r.attempts) } });
    },
  });
  const insert = async (userId = 'user_a') => {
    const record = newBacktestRecord(
      {
        userId,
        strategyId: 'strategy_1',
        strategyVersion: 1,
        totalBars: 100,
        symbols: ['BTC/USDT'],
        startDate: '2024-01-01',
        endDate: '2024-01-14',
        timeframe: '1h',
        marketType: 'SPOT',
        fees: { maker: 0.001, taker: 0.001 },
        leverage: 1,
        slippage: 0,
        initialCapital: 10_000,
        params: {},
        funding: false,
      },
      new Date().toISOString(),
    );
    await store.backtests.insert(record);
    return record;
  };
  const job = (id: string, redelivered = false): Job => ({ name: JOB, id, payload: {}, ...(redelivered ? { redelivered } : {}) });
  return { store, queue, lifecycle, insert, job, givenUp };
}

describe('run lifecycle', () => {
  it('takes a queued run once: a second delivery of the same job finds nothing to run', async () => {
    const { lifecycle, insert, job } = await setUp();
    const record = await insert();
    const taken = await lifecycle.take(job(record.id));
    expect(taken).toMatchObject({ id: record.id, status: 'running', attempts: 1 });
    expect(taken?.startedAt).not.toBeNull();
    expect(await lifecycle.take(job(record.id))).toBeNull();
  });

  it("takes over a dead worker's run when the job is redelivered, from its restart point, counting the attempt", async () => {
    const { store, lifecycle, insert, job } = await setUp();
    const record = await insert();
    await lifecycle.take(job(record.id));
    await store.backtests.transition(record.id, ['running'], { progress: 0.5, processedBars: 50 });
    const again = await lifecycle.take(job(record.id, true));
    expect(again).toMatchObject({ status: 'running', attempts: 2, progress: 0, processedBars: 0 });
  });

  it('gives up a run interrupted as often as allowed, with INTERRUPTED, instead of running it again', async () => {
    const { store, lifecycle, insert, job, givenUp } = await setUp();
    const record = await insert();
    await lifecycle.take(job(record.id));
    await lifecycle.take(job(record.id, true));
    expect(await lifecycle.take(job(record.id, true))).toBeNull();
    expect(givenUp.map((r) => r.id)).toEqual([record.id]);
    const failed = await store.backtests.findById(record.userId, record.id);
    expect(failed).toMatchObject({ status: 'failed', error: { code: 'INTERRUPTED', message: interruptedMessage(2) } });
  });

  it('recovers on one node: re-queues a dead run, re-adds waiting ones, gives up one out of attempts', async () => {
    const { store, queue, lifecycle, insert, job } = await setUp();
    const waiting = await insert('user_a');
    const dead = await insert('user_b');
    const spent = await insert('user_c');
    await lifecycle.take(job(dead.id));
    await lifecycle.take(job(spent.id));
    await lifecycle.take(job(spent.id, true));
    expect(await lifecycle.recover('restart')).toBe(2);
    expect(queue.added.map((j) => [j.id, j.group, j.redelivered ?? false]).sort()).toEqual(
      [
        [waiting.id, 'user_a', false],
        [dead.id, 'user_b', false],
      ].sort(),
    );
    expect(await store.backtests.findById('user_b', dead.id)).toMatchObject({ status: 'queued', attempts: 1 });
    expect(await store.backtests.findById('user_c', spent.id)).toMatchObject({ status: 'failed' });
  });

  it('recovers on a shared queue by re-adding jobs only: a running run may be a live node’s', async () => {
    const { store, queue, lifecycle, insert, job } = await setUp(true);
    const running = await insert();
    await lifecycle.take(job(running.id));
    expect(await lifecycle.recover('resubmit')).toBe(1);
    expect(queue.added).toEqual([{ name: JOB, id: running.id, group: running.userId, payload: {}, redelivered: true }]);
    expect(await store.backtests.findById(running.userId, running.id)).toMatchObject({ status: 'running', attempts: 1 });
    expect(await lifecycle.recover('none')).toBe(0);
  });
});

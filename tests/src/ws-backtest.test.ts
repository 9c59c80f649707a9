import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StratboxClientError } from '@stratbox/client';
import type { BacktestProgressData } from '@stratbox/core/contract';
import { deferred, sleep } from './harness/deferred.js';
import { startWsTestService, type WsTestService } from './harness/ws-service.js';

/** A strategy slow enough that a run reports progress several times. */
const BUSY = 'export function onCandle(ctx, c) { let x = 0; for (let i = 0; i < 400; i++) x += i; }';

describe('backtest progress over WebSocket, from a real run', () => {
  let service: WsTestService;

  beforeAll(async () => {
    service = await startWsTestService();
  });
  afterAll(() => service.close());

  it('user A watches the run started over HTTP to completed; user B gets NOT_FOUND and nothing else', async () => {
    const a = await service.newUser('alice');
    const b = await service.newUser('bob');
    const strategy = await a.client.strategies.create({ body: { name: 'busy', source: BUSY } });
    const created = await a.client.backtests.create({
      body: { strategyId: strategy.id, symbols: ['BTC/USDT:USDT'], startDate: '2024-01-01', endDate: '2024-03-31', timeframe: '1m' },
    });

    const events: BacktestProgressData[] = [];
    const finished = deferred<BacktestProgressData>();
    a.client.backtests.watch(created.id, (event) => {
      events.push(event);
      if (!['queued', 'running'].includes(event.status)) finished.resolve(event);
    });
    const bEvents: unknown[] = [];
    const bError = deferred<StratboxClientError>();
    b.client.backtests.watch(created.id, (event) => bEvents.push(event), { onError: (error) => bError.resolve(error) });

    expect(await bError.promise).toMatchObject({ code: 'NOT_FOUND' });
    const last = await finished.promise;
    expect(last).toMatchObject({ backtestId: created.id, status: 'completed', progress: 1 });
    expect(last.processedBars).toBe(last.totalBars);
    expect(last.totalBars).toBe(91 * 1440);
    const running = events.filter((e) => e.status === 'running');
    expect(running.length).toBeGreaterThan(1);
    for (let i = 1; i < running.length; i++) expect(running[i]!.progress).toBeGreaterThanOrEqual(running[i - 1]!.progress);
    await sleep(100);
    expect(bEvents).toEqual([]);
    expect((await a.client.backtests.get({ params: { id: created.id } })).status).toBe('completed');

    // a subscriber that comes after the end gets the final state at once
    const late = deferred<BacktestProgressData>();
    a.client.backtests.watch(created.id, (event) => late.resolve(event));
    expect(await late.promise).toEqual(last);
  });
});

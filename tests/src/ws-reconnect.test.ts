import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backtestProgressChannel, type BacktestProgressData } from '@stratbox/core/contract';
import type { RealtimeState } from '@stratbox/client';
import { createFakeBacktests } from './harness/backtest-events.js';
import { deferred, waitUntil } from './harness/deferred.js';
import { startWsTestService, type WsTestService } from './harness/ws-service.js';

describe('the client across a server crash and restart', () => {
  const backtests = createFakeBacktests();
  let service: WsTestService;

  beforeAll(async () => {
    service = await startWsTestService({ channelResolvers: { backtest: backtests.resolver } });
  });
  afterAll(() => service.close());

  it('reconnects and re-subscribes by itself; the final event arrives (live, or as the snapshot when it finished while the server was down)', async () => {
    const a = await service.newUser('alice');
    const live = backtests.create(a.userId);
    const whileDown = backtests.create(a.userId);
    const states: RealtimeState[] = [];
    a.client.realtime.onStateChange((state) => states.push(state));

    const events = new Map<string, BacktestProgressData[]>([
      [live, []],
      [whileDown, []],
    ]);
    const subscribedTimes = new Map<string, number>([
      [live, 0],
      [whileDown, 0],
    ]);
    const finals = new Map([
      [live, deferred()],
      [whileDown, deferred()],
    ]);
    for (const id of [live, whileDown]) {
      a.client.backtests.watch(
        id,
        (event) => {
          events.get(id)!.push(event);
          if (event.status === 'completed') finals.get(id)!.resolve();
        },
        { onSubscribed: () => subscribedTimes.set(id, subscribedTimes.get(id)! + 1) },
      );
    }
    await waitUntil(() => subscribedTimes.get(live) === 1 && subscribedTimes.get(whileDown) === 1, 30_000, 'both subscribed');

    // mid-stream...
    for (let bar = 1; bar <= 3; bar++) {
      service.stratbox.events.publish(backtestProgressChannel(live), backtests.progress(live, bar, 10));
      service.stratbox.events.publish(backtestProgressChannel(whileDown), backtests.progress(whileDown, bar, 10));
    }
    await waitUntil(() => events.get(live)!.length === 3 && events.get(whileDown)!.length === 3, 30_000, 'the first events');

    // ...the server dies: no close frame, the port goes away
    await service.crash();
    await waitUntil(() => a.client.realtime.state === 'reconnecting', 30_000, 'the client to notice');
    // one backtest finishes while nobody can hear it (the bus is at-most-once): lost live...
    service.stratbox.events.publish(backtestProgressChannel(whileDown), backtests.progress(whileDown, 10, 10));

    await service.restart();
    await waitUntil(() => subscribedTimes.get(live) === 2, 30_000, 're-subscription');
    // ...but the re-subscription hands over its final state
    await finals.get(whileDown)!.promise;
    expect(events.get(whileDown)!.map((e) => e.status)).toEqual(['running', 'running', 'running', 'completed']);

    // the other one goes on live after the restart
    for (let bar = 4; bar <= 10; bar++) service.stratbox.events.publish(backtestProgressChannel(live), backtests.progress(live, bar, 10));
    await finals.get(live)!.promise;
    expect(events.get(live)!.map((e) => e.processedBars)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(events.get(live)!.at(-1)!.status).toBe('completed');

    expect(states).toContain('reconnecting');
    expect(states.at(-1) === 'open' || states.at(-1) === 'idle').toBe(true);
    a.client.realtime.close();
    expect(a.client.realtime.state).toBe('closed');
  }, 120_000);

  it('retries with growing, jittered delays while the server stays down', async () => {
    const a = await service.newUser('patient', { realtime: { reconnect: { initialDelayMs: 40, maxDelayMs: 400 }, lingerMs: 50 } });
    const id = backtests.create(a.userId);
    const subscribed = deferred();
    let subscriptions = 0;
    a.client.backtests.watch(id, () => {}, {
      onSubscribed: () => {
        subscriptions++;
        subscribed.resolve();
      },
    });
    await subscribed.promise;
    const attempts: number[] = [];
    a.client.realtime.onStateChange((state) => {
      if (state === 'connecting') attempts.push(Date.now());
    });
    await service.crash();
    // six attempts while the server is down (a loaded machine only spaces them further apart)
    await waitUntil(() => attempts.length >= 6, 60_000, 'six reconnect attempts');
    await service.restart();
    await waitUntil(() => subscriptions === 2, 60_000, 're-subscription');
    const gaps = attempts.slice(1, 6).map((t, i) => t - attempts[i]!);
    // each wait is at least half its doubling step (equal jitter, capped at 400 ms): 20, 40, 80,
    // 160, 200 ms, 500 ms in all, where a fixed 40 ms retry would wait 100-200 ms; timers may fire
    // a millisecond early. The cap itself is reconnectDelay's unit test (an upper bound on wall
    // time would not survive a loaded machine).
    const leastWaits = gaps.map((_, k) => Math.min(400, 40 * 2 ** k) / 2);
    gaps.forEach((gap, k) => expect(gap, `wait before attempt ${k + 2}`).toBeGreaterThanOrEqual(leastWaits[k]! - 2));
    a.client.realtime.close();
  }, 120_000);
});

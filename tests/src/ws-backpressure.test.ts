import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '@stratbox/core';
import { WS_CLOSE_CODES, backtestProgressChannel, deploymentOrdersChannel } from '@stratbox/core/contract';
import { createFakeBacktests } from './harness/backtest-events.js';
import { sleep, waitUntil } from './harness/deferred.js';
import { openAuthedSocket, openRawSocket } from './harness/ws-raw-client.js';
import { startWsTestService, type WsTestService } from './harness/ws-service.js';

// no heartbeat here: a paused reader cannot answer pings and would be dropped as dead first
const LIMITS = { dropProgressAboveBytes: 16 * 1024, maxBufferedBytes: 64 * 1024, heartbeatIntervalMs: 0 };

/** Publishes until `done()` or `max` events, yielding to the event loop so that writes reach the kernel and fill it. */
async function flood(publish: (i: number) => void, done: () => boolean, max: number): Promise<number> {
  let i = 0;
  while (!done() && i < max) {
    for (let j = 0; j < 500 && i < max; j++) publish(++i);
    await sleep(1);
  }
  return i;
}

describe('slow consumers and dead peers', () => {
  const backtests = createFakeBacktests();
  let service: WsTestService;

  beforeAll(async () => {
    service = await startWsTestService({ channelResolvers: { backtest: backtests.resolver } }, LIMITS);
  });
  afterAll(() => service.close());

  it('drops intermediate progress for a socket that does not read, never the final event, and keeps its buffer capped', async () => {
    const user = await service.newUser('slow');
    const id = backtests.create(user.userId);
    const channel = backtestProgressChannel(id);
    const slow = await openAuthedSocket(service.wsUrl, user.apiKey);
    const fast = await openAuthedSocket(service.wsUrl, user.apiKey);
    for (const socket of [slow, fast]) {
      socket.send({ type: 'subscribe', channel, id: 's' });
      await socket.next();
    }
    slow.ws.pause();
    const total = 1_000_000;
    const dropsBefore = service.realtime.stats().droppedEvents;
    const published = await flood(
      (i) => service.stratbox.events.publish(channel, backtests.progress(id, i, total)),
      () => service.realtime.stats().droppedEvents > dropsBefore + 1000,
      400_000,
    );
    expect(service.realtime.stats().droppedEvents).toBeGreaterThan(dropsBefore);
    service.stratbox.events.publish(channel, backtests.progress(id, total, total));
    expect(service.realtime.stats().slowConsumerCloses).toBe(0);

    // the reading socket got everything, in order
    await fast.waitFor((m) => m.type === 'event' && (m.data as { status: string }).status === 'completed', 10_000);
    // what the server holds for the slow one stays near the drop threshold: the final event and little else
    expect(service.realtime.stats().bufferedBytes).toBeLessThan(LIMITS.dropProgressAboveBytes + 2048);
    const fastBars = fast.received.filter((m) => m.type === 'event').map((m) => (m.data as { processedBars: number }).processedBars);
    expect(fastBars).toHaveLength(published + 1);

    // the slow one, once it reads again, gets a prefix, a gap, and the final event last
    slow.ws.resume();
    const last = await slow.waitFor((m) => m.type === 'event' && (m.data as { status: string }).status === 'completed', 10_000);
    expect(last).toMatchObject({ data: { processedBars: total, status: 'completed' } });
    const slowBars = slow.received.filter((m) => m.type === 'event').map((m) => (m.data as { processedBars: number }).processedBars);
    expect(slowBars.length).toBeLessThan(published + 1);
    expect(slowBars).toEqual([...slowBars].sort((x, y) => x - y));
    expect(slow.ws.readyState).toBe(slow.ws.OPEN);
    slow.close();
    fast.close();
  });

  it('closes a socket with 4509 when events that may not be dropped pile up past the cap; others are unaffected', async () => {
    const user = await service.newUser('stuck');
    const deploymentId = newId('deployment');
    const now = new Date().toISOString();
    await service.stratbox.store.deployments.insert({
      id: deploymentId,
      userId: user.userId,
      strategyId: newId('strategy'),
      strategyVersion: 1,
      credentialId: newId('credential'),
      symbols: ['BTC/USDT:USDT'],
      params: {},
      status: 'running',
      error: null,
      createdAt: now,
      updatedAt: now,
      startedAt: now,
      stoppedAt: null,
    });
    const channel = deploymentOrdersChannel(deploymentId);
    const stuck = await openAuthedSocket(service.wsUrl, user.apiKey);
    const reader = await openAuthedSocket(service.wsUrl, user.apiKey);
    for (const socket of [stuck, reader]) {
      socket.send({ type: 'subscribe', channel, id: 'o' });
      await socket.next();
    }
    stuck.ws.pause();
    const closesBefore = service.realtime.stats().slowConsumerCloses;
    const order = (i: number) => ({
      deploymentId,
      order: {
        id: newId('order'),
        exchangeOrderId: String(i),
        symbol: 'BTC/USDT:USDT',
        side: 'buy' as const,
        type: 'limit' as const,
        quantity: 1,
        price: i,
        status: 'open' as const,
        filledQuantity: 0,
        averagePrice: null,
        fee: 0,
        updatedAt: now,
      },
    });
    await flood(
      (i) => service.stratbox.events.publish(channel, order(i)),
      () => service.realtime.stats().slowConsumerCloses > closesBefore,
      400_000,
    );
    expect(service.realtime.stats().slowConsumerCloses).toBe(closesBefore + 1);
    stuck.ws.resume();
    expect((await stuck.closed).code).toBe(WS_CLOSE_CODES.SLOW_CONSUMER);
    expect(reader.ws.readyState).toBe(reader.ws.OPEN);
    service.stratbox.events.publish(channel, order(-1));
    await reader.waitFor((m) => m.type === 'event' && (m.data as { order: { exchangeOrderId: string } }).order.exchangeOrderId === '-1', 10_000);
    reader.close();
  });

  it('drops a peer that stops answering pings, and keeps one that answers', async () => {
    const service = await startWsTestService({}, { heartbeatIntervalMs: 150 });
    const user = await service.newUser('ghost');
    const dead = await openRawSocket(service.wsUrl, { token: user.apiKey, autoPong: false });
    const alive = await openRawSocket(service.wsUrl, { token: user.apiKey });
    let alivePings = 0;
    alive.ws.on('ping', () => alivePings++);
    const closed = await dead.closed;
    expect(closed.code).toBe(1006); // terminated: no close frame for a peer presumed gone
    // Dropped at the heartbeat after its unanswered ping, counted in heartbeats rather than on a
    // stopwatch: the answering peer, opened after it, had been pinged at most twice by then (3 with
    // a tick of slack for a loaded machine).
    expect(alivePings).toBeLessThanOrEqual(3);
    // The answering peer outlives several more heartbeats (pings it answered), not a stopwatch.
    const pingsAtDrop = alivePings;
    await waitUntil(() => alivePings >= pingsAtDrop + 3, 15_000, 'three more pings to the answering peer');
    expect(alive.ws.readyState).toBe(alive.ws.OPEN);
    await waitUntil(() => service.realtime.stats().sockets === 1, 2000, 'the dead socket to be released');
    alive.close();
    await service.close();
  });
});

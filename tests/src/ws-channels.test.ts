import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { StratboxClientError } from '@stratbox/client';
import { backtestProgressChannel, deploymentOrdersChannel, type BacktestProgressData, type DeploymentOrderData } from '@stratbox/core/contract';
import { newId } from '@stratbox/core';
import { createFakeBacktests } from './harness/backtest-events.js';
import { deferred, sleep, waitUntil } from './harness/deferred.js';
import { openAuthedSocket, openRawSocket } from './harness/ws-raw-client.js';
import { startWsTestService, type WsTestService } from './harness/ws-service.js';

const now = () => new Date().toISOString();

function order(deploymentId: string, status: DeploymentOrderData['order']['status'] = 'filled'): DeploymentOrderData {
  return {
    deploymentId,
    order: {
      id: newId('order'),
      exchangeOrderId: 'x-1',
      symbol: 'BTC/USDT:USDT',
      side: 'buy',
      type: 'market',
      quantity: 0.01,
      price: null,
      status,
      filledQuantity: 0.01,
      averagePrice: 50_000,
      fee: 0.25,
      updatedAt: now(),
    },
  };
}

describe('real-time channels over real sockets', () => {
  const backtests = createFakeBacktests();
  let service: WsTestService;

  beforeAll(async () => {
    service = await startWsTestService({ channelResolvers: { backtest: backtests.resolver } });
  });
  afterAll(() => service.close());

  it("user A receives their backtest's progress ending with completed; user B's subscription to it gets NOT_FOUND and no events", async () => {
    const a = await service.newUser('alice');
    const b = await service.newUser('bob');
    const id = backtests.create(a.userId);

    const received: BacktestProgressData[] = [];
    const subscribed = deferred();
    const completed = deferred();
    const stopA = a.client.backtests.watch(
      id,
      (event) => {
        expectTypeOf(event).toEqualTypeOf<BacktestProgressData>();
        received.push(event);
        if (event.status === 'completed') completed.resolve();
      },
      { onSubscribed: () => subscribed.resolve() },
    );

    // B through the typed client...
    const bEvents: unknown[] = [];
    const bError = deferred<StratboxClientError>();
    b.client.backtests.watch(id, (event) => bEvents.push(event), { onError: (error) => bError.resolve(error) });
    // ...and at the wire level, next to a backtest that does not exist at all
    const bRaw = await openAuthedSocket(service.wsUrl, b.apiKey);
    bRaw.send({ type: 'subscribe', channel: backtestProgressChannel(id), id: 'theirs' });
    const missingId = `bt_${'Z'.repeat(22)}`;
    bRaw.send({ type: 'subscribe', channel: backtestProgressChannel(missingId), id: 'missing' });
    const theirs = await bRaw.next();
    const missing = await bRaw.next();

    await subscribed.promise;
    const error = await bError.promise;
    expect(error).toBeInstanceOf(StratboxClientError);
    expect(error).toMatchObject({ code: 'NOT_FOUND', status: 404 });
    expect(theirs).toEqual({ type: 'error', id: 'theirs', error: { code: 'NOT_FOUND', message: `Channel backtest:${id}:progress not found` } });
    expect(missing).toEqual({ type: 'error', id: 'missing', error: { code: 'NOT_FOUND', message: `Channel backtest:${missingId}:progress not found` } });

    for (let bar = 1; bar <= 10; bar++) service.stratbox.events.publish(backtestProgressChannel(id), backtests.progress(id, bar, 10));
    await completed.promise;

    expect(received.map((e) => e.processedBars)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(received.at(-1)).toEqual({ backtestId: id, status: 'completed', progress: 1, processedBars: 10, totalBars: 10 });
    await sleep(100);
    expect(bEvents).toEqual([]);
    expect(bRaw.received.filter((m) => m.type === 'event')).toEqual([]);
    stopA();
    bRaw.close();
  });

  it('a subscription to a backtest that already finished receives its final state at once', async () => {
    const a = await service.newUser('late');
    const id = backtests.create(a.userId);
    backtests.progress(id, 5, 5, 'failed');
    const raw = await openAuthedSocket(service.wsUrl, a.apiKey);
    raw.send({ type: 'subscribe', channel: backtestProgressChannel(id), id: 'r1' });
    expect(await raw.next()).toEqual({ type: 'subscribed', channel: backtestProgressChannel(id), id: 'r1' });
    expect(await raw.next()).toEqual({
      type: 'event',
      channel: backtestProgressChannel(id),
      data: { backtestId: id, status: 'failed', progress: 1, processedBars: 5, totalBars: 5 },
    });

    // the typed client too, and a second watcher of the same channel gets it as well
    const first = deferred<BacktestProgressData>();
    const second = deferred<BacktestProgressData>();
    a.client.backtests.watch(id, (event) => first.resolve(event));
    expect((await first.promise).status).toBe('failed');
    a.client.backtests.watch(id, (event) => second.resolve(event));
    expect((await second.promise).status).toBe('failed');
    raw.close();
    a.client.realtime.close();
  });

  it('delivers deployment orders to the owner only, and stops after unsubscribe', async () => {
    const a = await service.newUser('trader');
    const b = await service.newUser('other');
    const deploymentId = newId('deployment');
    await service.stratbox.store.deployments.insert({
      id: deploymentId,
      userId: a.userId,
      strategyId: newId('strategy'),
      strategyVersion: 1,
      credentialId: newId('credential'),
      symbols: ['BTC/USDT:USDT'],
      params: {},
      status: 'running',
      error: null,
      createdAt: now(),
      updatedAt: now(),
      startedAt: now(),
      stoppedAt: null,
    });
    const orders: DeploymentOrderData[] = [];
    const subscribed = deferred();
    const stop = a.client.deployments.watchOrders(deploymentId, (event) => orders.push(event), { onSubscribed: () => subscribed.resolve() });
    const refused = deferred<StratboxClientError>();
    b.client.deployments.watchOrders(deploymentId, () => {}, { onError: (error) => refused.resolve(error) });
    await subscribed.promise;
    expect((await refused.promise).code).toBe('NOT_FOUND');

    const channel = deploymentOrdersChannel(deploymentId);
    const sent = [order(deploymentId, 'open'), order(deploymentId, 'partially_filled'), order(deploymentId, 'filled')];
    for (const event of sent) service.stratbox.events.publish(channel, event);
    await waitUntil(() => orders.length === 3, 2000, 'three orders');
    expect(orders).toEqual(sent);

    stop();
    await sleep(50);
    service.stratbox.events.publish(channel, order(deploymentId));
    await sleep(100);
    expect(orders).toHaveLength(3);
    expect(service.realtime.stats().channels).toBe(0);
  });

  it('authenticates by the Authorization header of the upgrade, too', async () => {
    const a = await service.newUser('header');
    const raw = await openRawSocket(service.wsUrl, { token: a.apiKey });
    expect(await raw.next()).toEqual({ type: 'authenticated', userId: a.userId });
    raw.send({ type: 'subscribe', channel: backtestProgressChannel(backtests.create(a.userId)), id: 'h1' });
    expect(await raw.next()).toMatchObject({ type: 'subscribed', id: 'h1' });
    raw.send({ type: 'unsubscribe', channel: backtestProgressChannel(backtests.create(a.userId)), id: 'h2' });
    expect(await raw.next()).toMatchObject({ type: 'unsubscribed', id: 'h2' });
    raw.close();
  });

  it('checks channel names in the client before sending anything', async () => {
    const { client } = await service.newUser('typo');
    expect(() => client.subscribe('backtest:nope:progress', () => {})).toThrow(StratboxClientError);
    // @ts-expect-error not a channel name
    expect(() => client.subscribe('orders', () => {})).toThrow(/Not a channel/);
    expect(client.realtime.state).toBe('idle');
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BacktestProgressData, EventBus } from '@stratbox/core';
import { createRedisEventBus } from './redis-event-bus.js';
import { deleteKeys, REDIS_URL, requireRedis, uniquePrefix } from './testing/test-redis.js';

const available = await requireRedis('queue-bullmq: Redis event bus');
const BT = 'bt_AAAAAAAAAAAAAAAAAAAAAA';
const channel = `backtest:${BT}:progress` as const;
const progress = (processedBars: number): BacktestProgressData => ({
  backtestId: BT,
  status: 'running',
  progress: processedBars / 100,
  processedBars,
  totalBars: 100,
});
const until = async (check: () => boolean, ms = 3000) => {
  for (const end = Date.now() + ms; !check(); ) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
};

describe.runIf(available)('the Redis event bus (EventBus port on Redis pub/sub)', () => {
  const prefix = uniquePrefix('events');
  const buses: EventBus[] = [];
  const errors: Array<[unknown, string]> = [];
  const node = () => {
    const bus = createRedisEventBus({ connection: REDIS_URL, prefix, onHandlerError: (error, c) => errors.push([error, c]) });
    buses.push(bus);
    return bus;
  };
  let a: EventBus;
  let b: EventBus;
  beforeAll(() => {
    a = node();
    b = node();
  });
  afterAll(async () => {
    await Promise.all(buses.map((bus) => bus.close()));
    await deleteKeys(prefix);
  });

  it('delivers an event published on one node to subscribers on every node, in publish order', async () => {
    const onA: number[] = [];
    const onB: number[] = [];
    const other: unknown[] = [];
    const stopA = await a.subscribe(channel, (data) => onA.push(data.processedBars));
    const stopB = await b.subscribe(channel, (data) => onB.push(data.processedBars));
    const stopOther = await b.subscribe('backtest:bt_BBBBBBBBBBBBBBBBBBBBBB:progress', (data) => other.push(data));
    for (let i = 1; i <= 200; i++) a.publish(channel, progress(i));
    await until(() => onA.length === 200 && onB.length === 200);
    const expected = Array.from({ length: 200 }, (_, i) => i + 1);
    expect(onA).toEqual(expected);
    expect(onB).toEqual(expected);
    expect(other).toEqual([]);
    stopA();
    stopB();
    stopOther();
  });

  it('keeps per-channel order for every subscriber when a handler publishes in turn', async () => {
    const onA: number[] = [];
    const onB: number[] = [];
    const stopA = await a.subscribe(channel, (data) => onA.push(data.processedBars));
    const stopB = await b.subscribe(channel, (data) => {
      onB.push(data.processedBars);
      if (data.processedBars < 5) b.publish(channel, progress(data.processedBars + 1));
    });
    b.publish(channel, progress(1));
    await until(() => onA.length === 5 && onB.length === 5);
    expect(onA).toEqual([1, 2, 3, 4, 5]);
    expect(onB).toEqual([1, 2, 3, 4, 5]);
    stopA();
    stopB();
  });

  it('never throws for a handler error, reports it and still delivers to the other handlers', async () => {
    errors.length = 0;
    const seen: number[] = [];
    const stops = [
      await b.subscribe(channel, () => {
        throw new Error('boom');
      }),
      await b.subscribe(channel, async () => {
        throw new Error('async boom');
      }),
      await b.subscribe(channel, (data) => seen.push(data.processedBars)),
    ];
    expect(() => a.publish(channel, progress(7))).not.toThrow();
    await until(() => seen.length === 1 && errors.length === 2);
    expect(errors.map(([error]) => (error as Error).message).sort()).toEqual(['async boom', 'boom']);
    expect(errors.every(([, c]) => c === channel)).toBe(true);
    for (const stop of stops) stop();
  });

  it('delivers nothing after unsubscribe, and nothing to a subscription made after the publish', async () => {
    const seen: string[] = [];
    const stop = await b.subscribe(channel, () => seen.push('first'));
    stop();
    stop(); // harmless twice
    a.publish(channel, progress(1));
    await new Promise((r) => setTimeout(r, 100)); // handed over before the next subscription
    const late = await b.subscribe(channel, () => seen.push('late'));
    const marker: number[] = [];
    const stopMarker = await b.subscribe(channel, (d) => marker.push(d.processedBars));
    a.publish(channel, progress(2));
    await until(() => marker.length === 1);
    expect(seen).toEqual(['late']); // the event published while nobody listened is not replayed
    late();
    stopMarker();
  });

  it('after close: publish is a no-op and subscribe rejects with UNAVAILABLE', async () => {
    const bus = node();
    const seen: number[] = [];
    await bus.subscribe(channel, (d) => seen.push(d.processedBars));
    await bus.close();
    await bus.close(); // safe twice
    expect(() => bus.publish(channel, progress(1))).not.toThrow();
    a.publish(channel, progress(2));
    await new Promise((r) => setTimeout(r, 100));
    expect(seen).toEqual([]);
    await expect(bus.subscribe(channel, () => {})).rejects.toMatchObject({ code: 'UNAVAILABLE' });
  });
});

import { describe, expect, it } from 'vitest';
import type { BacktestProgressData, DeploymentOrderData } from '@stratbox/contract';
import { createInProcessEventBus } from './in-process-event-bus.js';

const BT = 'bt_AAAAAAAAAAAAAAAAAAAAAA';
const progress = (processedBars: number, status: BacktestProgressData['status'] = 'running'): BacktestProgressData => ({
  backtestId: BT,
  status,
  progress: processedBars / 10,
  processedBars,
  totalBars: 10,
});

describe('the in-process event bus', () => {
  it('delivers events of a channel to its subscribers only, in publish order', async () => {
    const bus = createInProcessEventBus();
    const seen: number[] = [];
    const other: unknown[] = [];
    await bus.subscribe(`backtest:${BT}:progress`, (data) => seen.push(data.processedBars));
    await bus.subscribe('backtest:bt_BBBBBBBBBBBBBBBBBBBBBB:progress', (data) => other.push(data));
    for (let i = 1; i <= 5; i++) bus.publish(`backtest:${BT}:progress`, progress(i));
    expect(seen).toEqual([1, 2, 3, 4, 5]);
    expect(other).toEqual([]);
  });

  it('keeps per-channel order for every subscriber when a handler publishes in turn', async () => {
    const bus = createInProcessEventBus();
    const channel = `backtest:${BT}:progress` as const;
    const first: number[] = [];
    const second: number[] = [];
    await bus.subscribe(channel, (data) => {
      first.push(data.processedBars);
      if (data.processedBars === 1) bus.publish(channel, progress(2));
    });
    await bus.subscribe(channel, (data) => second.push(data.processedBars));
    bus.publish(channel, progress(1));
    expect(first).toEqual([1, 2]);
    expect(second).toEqual([1, 2]);
  });

  it('never throws for a handler error, reports it and still delivers to the other handlers', async () => {
    const errors: Array<[unknown, string]> = [];
    const bus = createInProcessEventBus({ onHandlerError: (error, channel) => errors.push([error, channel]) });
    const channel = `backtest:${BT}:progress` as const;
    const seen: number[] = [];
    await bus.subscribe(channel, () => {
      throw new Error('boom');
    });
    await bus.subscribe(channel, async () => {
      throw new Error('async boom');
    });
    await bus.subscribe(channel, (data) => seen.push(data.processedBars));
    expect(() => bus.publish(channel, progress(1))).not.toThrow();
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(seen).toEqual([1]);
    expect(errors.map(([error]) => (error as Error).message).sort()).toEqual(['async boom', 'boom']);
    expect(errors.every(([, c]) => c === channel)).toBe(true);
  });

  it('stops delivering after unsubscribe (also mid-delivery) and after close', async () => {
    const bus = createInProcessEventBus();
    const channel = 'deployment:dep_AAAAAAAAAAAAAAAAAAAAAA:orders' as const;
    const order: DeploymentOrderData = {
      deploymentId: 'dep_AAAAAAAAAAAAAAAAAAAAAA',
      order: {
        id: 'ord_AAAAAAAAAAAAAAAAAAAAAA',
        exchangeOrderId: null,
        symbol: 'BTC/USDT:USDT',
        side: 'buy',
        type: 'market',
        quantity: 1,
        price: null,
        status: 'filled',
        filledQuantity: 1,
        averagePrice: 100,
        fee: 0.05,
        updatedAt: '2026-01-02T03:04:05.000Z',
      },
    };
    const seen: string[] = [];
    let stopSecond = () => {};
    await bus.subscribe(channel, () => {
      seen.push('first');
      stopSecond();
    });
    stopSecond = await bus.subscribe(channel, () => seen.push('second'));
    bus.publish(channel, order);
    expect(seen).toEqual(['first']);
    stopSecond();
    await bus.close();
    bus.publish(channel, order);
    expect(seen).toEqual(['first']);
    await expect(bus.subscribe(channel, () => {})).rejects.toMatchObject({ code: 'UNAVAILABLE' });
  });
});

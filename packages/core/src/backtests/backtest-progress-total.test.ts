import { afterEach, describe, expect, it } from 'vitest';
import { CreateBacktestBody } from '@stratbox/contract';
import { createStratbox, type Stratbox } from '../create-stratbox.js';
import { createInProcessEventBus } from '../events/in-process-event-bus.js';
import type { EventBus } from '../ports/event-bus.js';
import { createSilentLogger } from '../ports/logger.js';
import { createMemoryStore } from '../testing/memory-store.js';

/*
 * A backtest's progress events, as a client following its channel sees them, on the real
 * sandbox runner: a two-symbol run whose strategy warms up on 50 candles before the start (so
 * the engine is handed more candles than it trades) must report one total from its first event
 * to its last, and end on processedBars === totalBars.
 */

type ProgressEvent = { backtestId: string; status: string; progress: number; processedBars: number; totalBars: number };

const services: Stratbox[] = [];
afterEach(async () => {
  await Promise.all(services.splice(0).map((s) => s.close()));
});

/** An event bus that also keeps every progress event published, subscribed or not. */
function recordingBus(): { bus: EventBus; published: ProgressEvent[] } {
  const inner = createInProcessEventBus();
  const published: ProgressEvent[] = [];
  const bus: EventBus = {
    publish(channel, data) {
      if (channel.startsWith('backtest:') && channel.endsWith(':progress')) published.push({ ...(data as ProgressEvent) });
      inner.publish(channel, data);
    },
    subscribe: (channel, handler) => inner.subscribe(channel, handler),
    close: () => inner.close(),
  };
  return { bus, published };
}

/** Some work per candle, so a run of a few thousand candles reports progress several times. */
const WARM_AND_BUSY = `export const meta = { timeframe: '1h', warmup: 50 };
export function onCandle(ctx, c) {
  let x = 0; for (let i = 0; i < 3000; i++) x += i;
  const s = ctx.indicators.sma(c.symbol, 50);
  if (s && c.close > s && !ctx.position(c.symbol)) ctx.buy(c.symbol, { size: 0.1 });
  else if (s && c.close < s && ctx.position(c.symbol)) ctx.close(c.symbol);
}`;

describe('backtest progress', () => {
  it('carries one totalBars from the first event to the last, which ends on processedBars === totalBars', { timeout: 180_000 }, async () => {
    const { bus, published } = recordingBus();
    const stratbox = createStratbox({ store: createMemoryStore(), logger: createSilentLogger(), events: bus, sandbox: { size: 1, cpuTimeMs: 120_000 } });
    services.push(stratbox);
    await stratbox.start();
    const { userId } = await stratbox.users.createUser('trader');
    const strategy = await stratbox.strategies.create(userId, { name: 'warm', description: '', source: WARM_AND_BUSY, marketType: 'LINEAR' });
    const created = await stratbox.backtests.create(
      userId,
      CreateBacktestBody.parse({ strategyId: strategy.id, symbols: ['BTC/USDT:USDT', 'ETH/USDT:USDT'], startDate: '2025-01-01', endDate: '2025-04-30' }),
    );
    const mine = () => published.filter((e) => e.backtestId === created.id);
    const deadline = Date.now() + 170_000;
    while (!mine().some((e) => e.status === 'completed' || e.status === 'failed')) {
      if (Date.now() > deadline) throw new Error(`no final event; events: ${JSON.stringify(mine())}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    const events = mine();
    const last = events.at(-1)!;
    expect(last.status).toBe('completed');
    // 120 days of 1h candles on 2 symbols are traded; the 49 warm-up candles of each are not counted
    expect(last.totalBars).toBe(120 * 24 * 2);
    expect(events.length).toBeGreaterThan(2); // the start, progress on the way, the end
    expect(events.map((e) => e.totalBars)).toEqual(events.map(() => last.totalBars));
    expect(last.processedBars).toBe(last.totalBars);
    expect(last.progress).toBe(1);
    for (let i = 1; i < events.length; i++) expect(events[i]!.processedBars).toBeGreaterThanOrEqual(events[i - 1]!.processedBars);
    for (const e of events.slice(0, -1)) expect(e.processedBars).toBeLessThan(e.totalBars);
    // the record says what the events said
    const record = await stratbox.store.backtests.findById(userId, created.id);
    expect(record).toMatchObject({ processedBars: last.totalBars, totalBars: last.totalBars });
  });
});

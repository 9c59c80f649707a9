import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NOTIFICATION_EVENT_CATALOGUE } from '@stratbox/contract';
import type { Stratbox } from '../create-stratbox.js';
import type { NotificationEventRecord } from '../ports/store.js';
import { startFastPaperStratbox } from './live-harness-parts.js';
import { FOUR_ORDERS } from './test-strategies.js';

/*
 * The deployment events a paper deployment writes as it lives: real sandbox child processes, the
 * built-in paper exchange on synthetic candles, the real supervisor and runner, a clock 400 times
 * faster than real time (a '1m' candle every 150 ms). What is checked is the owner's outbox.
 */

const SYMBOL = 'BTC/USDT:USDT';

const THROWS = `
export const meta = { timeframe: '1m' };
export function onCandle() { throw new Error('lost the plot'); }
`;

describe('deployment events', () => {
  let stratbox: Stratbox;
  let userId: string;
  let otherId: string;

  beforeAll(async () => {
    stratbox = await startFastPaperStratbox({ billing: { plans: { free: { limits: { deployments: 5 } } } } });
    userId = (await stratbox.users.createUser('alice')).userId;
    otherId = (await stratbox.users.createUser('bob')).userId;
  }, 60_000);

  afterAll(() => stratbox?.close());

  async function deploy(source: string, risk?: Record<string, unknown>) {
    const strategy = await stratbox.strategies.create(userId, { name: 'events', description: '', source, marketType: 'LINEAR' });
    const credential = await stratbox.credentials.create(userId, { exchange: 'paper', label: 'paper', apiKey: 'k', secret: 's', testnet: false });
    const created = await stratbox.deployments.create(userId, {
      strategyId: strategy.id,
      credentialId: credential.id,
      symbols: [SYMBOL],
      ...(risk ? { risk } : {}),
    });
    return { id: created.id, strategyId: strategy.id };
  }
  const get = (id: string) => stratbox.deployments.get(userId, id);
  const events = async (id: string, type?: string) =>
    (await stratbox.store.notificationEvents.list(userId, { limit: 50 })).filter((e) => e.subjectId === id && (type === undefined || e.type === type));
  const data = (e: NotificationEventRecord) => NOTIFICATION_EVENT_CATALOGUE[e.type].data.parse(e.data);

  it('started, each fill, the halt with its figures, started again on restart, then stopped: each once, to the owner only', async () => {
    const { id, strategyId } = await deploy(FOUR_ORDERS, { maxOrdersPerMinute: 3, onBreach: 'keep' });
    await expect.poll(async () => (await get(id)).status, { timeout: 60_000 }).not.toMatch(/^(starting|running)$/);
    const halted = await get(id);
    expect(halted.status, JSON.stringify(halted.error)).toBe('halted');

    const started = await events(id, 'deployment.started');
    expect(started).toHaveLength(1);
    expect(started[0]).toMatchObject({ userId, severity: 'info', subjectKind: 'deployment', subjectId: id, time: halted.startedAt });
    expect(data(started[0]!)).toEqual({ deploymentId: id, strategyId, strategyVersion: 1, symbols: [SYMBOL] });

    // the halt, with the figures the record keeps
    await expect.poll(async () => (await events(id, 'deployment.halted')).length).toBe(1);
    const [halt] = await events(id, 'deployment.halted');
    expect(halt).toMatchObject({ severity: 'critical', time: halted.halt!.at });
    expect(data(halt!)).toEqual({ deploymentId: id, halt: halted.halt });
    expect(halt!.summary).toBe(`Deployment ${id} halted (maxOrdersPerMinute): ${halted.halt!.message}`);

    // the market entry filled: one event, with the order as the API shows it
    const { orders } = await stratbox.deployments.orders(userId, id, { limit: 100 });
    const filled = orders.filter((o) => o.status === 'filled');
    expect(filled).toHaveLength(1);
    const fills = await events(id, 'deployment.order.filled');
    expect(fills).toHaveLength(1);
    const o = filled[0]!;
    expect(data(fills[0]!)).toEqual({
      deploymentId: id,
      order: {
        id: o.id,
        symbol: SYMBOL,
        side: 'buy',
        type: 'market',
        quantity: 0.01,
        filledQuantity: o.filledQuantity,
        averagePrice: o.averagePrice,
        fee: o.fee,
      },
    });

    // restarted: started again; stopped: the closing order's fill and the stop
    await stratbox.deployments.restart(userId, id, { risk: null });
    await expect.poll(async () => (await get(id)).status, { timeout: 60_000 }).toBe('running');
    await expect.poll(async () => (await events(id, 'deployment.started')).length, { timeout: 30_000 }).toBe(2);
    const stopped = await stratbox.deployments.stop(userId, id);
    expect(stopped.status).toBe('stopped');
    const stops = await events(id, 'deployment.stopped');
    expect(stops).toHaveLength(1);
    expect(stops[0]).toMatchObject({ time: stopped.stoppedAt, summary: `Deployment ${id} stopped (1 position(s) closed)` });
    expect(data(stops[0]!)).toEqual({ deploymentId: id });

    const after = (await stratbox.deployments.orders(userId, id, { limit: 100 })).orders.filter((x) => x.status === 'filled');
    const fillEvents = await events(id, 'deployment.order.filled');
    expect(fillEvents.map((e) => (e.data as { order: { id: string } }).order.id).sort()).toEqual(after.map((x) => x.id).sort());
    expect(await events(id, 'deployment.failed')).toEqual([]);
    expect(await stratbox.store.notificationEvents.list(otherId, { limit: 50 })).toEqual([]);
    for (const e of await events(id)) expect(JSON.stringify(e)).not.toContain('onCandle');
  }, 120_000);

  it('a strategy that throws fails the deployment: one deployment.failed with its error', async () => {
    const { id } = await deploy(THROWS);
    await expect.poll(async () => (await get(id)).status, { timeout: 60_000 }).toBe('failed');
    const failed = await get(id);
    const events_ = await events(id, 'deployment.failed');
    expect(events_).toHaveLength(1);
    expect(events_[0]).toMatchObject({ severity: 'critical', time: failed.stoppedAt });
    expect(data(events_[0]!)).toEqual({ deploymentId: id, error: { code: failed.error!.code, message: failed.error!.message } });
    expect(failed.error!.code).toBe('STRATEGY_ERROR');
    expect(await events(id, 'deployment.stopped')).toEqual([]);
  }, 90_000);
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DriftReport } from '@stratbox/core';
import type { StratboxClient } from '@stratbox/client';
import { startTestService, type TestService } from './harness/in-process.js';
import { acceleratedClock } from './harness/accelerated-clock.js';
import { waitFor } from './harness/deferred.js';
import { expectError } from './harness/client-errors.js';

/*
 * Drift reports over real HTTP (the example service in process, on SQLite): paper deployments on
 * '1m' with a clock 30 times faster than real time (a candle every 2 s), one of the owner's own
 * strategy and one of a buyer's bought copy of it. A paper deployment replays exactly: 100 %
 * decision parity, no slippage, no fee gap. Another user gets 404; the buyer's report carries
 * neither the source nor the strategy's log lines.
 */

const SYMBOL = 'BTC/USDT:USDT';
const SOURCE_MARKER = 'SOURCE_MARKER_d41f';
const LOG_MARKER = 'LOG_MARKER_7c2e';

const ROUND_TRIP = `
// ${SOURCE_MARKER}
export const meta = { timeframe: '1m' };
let n = 0;
export function onCandle(ctx, c) {
  n++;
  ctx.log('${LOG_MARKER}', n);
  if (n === 2) ctx.buy(c.symbol, { quantity: 0.01, tag: 'in' });
  if (n === 4) ctx.sell(c.symbol, { quantity: 0.01, reduceOnly: true, tag: 'out' });
}
`;

type User = { userId: string; apiKey: string; client: StratboxClient };

describe('drift reports over HTTP (paper)', () => {
  let svc: TestService;
  let alice: User;
  let bob: User;
  let carol: User;
  let own: string;
  let bought: string;

  const raw = (user: User, path: string, init: RequestInit = {}) =>
    fetch(svc.baseUrl + path, { ...init, headers: { authorization: `Bearer ${user.apiKey}`, 'content-type': 'application/json', ...init.headers } });

  async function deploy(user: User, strategyId: string): Promise<string> {
    const credential = await user.client.credentials.create({ body: { exchange: 'paper', label: 'paper' } });
    return (await user.client.deployments.create({ body: { strategyId, credentialId: credential.id, symbols: [SYMBOL] } })).id;
  }

  beforeAll(async () => {
    svc = await startTestService({ clock: acceleratedClock(30), deployments: { pollIntervalMs: 40 }, drift: { refresh: false } });
    alice = await svc.newUser('alice');
    bob = await svc.newUser('bob');
    carol = await svc.newUser('carol');
    const strategyId = (await alice.client.strategies.create({ body: { name: 'Round trip', source: ROUND_TRIP, marketType: 'LINEAR' } })).id;
    const listing = await alice.client.marketplace.create({ body: { strategyId, name: 'Round trip', description: 'in and out', price: 0 } });
    await bob.client.marketplace.purchase({ params: { id: listing.id }, body: {} });
    own = await deploy(alice, strategyId);
    bought = await deploy(bob, listing.id);
  }, 60_000);

  afterAll(async () => {
    await svc?.close();
  });

  it('answers 100 % parity, no slippage and no fee gap for a paper deployment; 404 to another user', async () => {
    for (const [user, id] of [
      [alice, own],
      [bob, bought],
    ] as const) {
      await waitFor('six recorded candles', async () => ((await svc.stratbox.store.deploymentRecordings.span(id))?.count ?? 0) >= 6, 120_000, 200);
      await user.client.deployments.stop({ params: { id } });
    }
    for (const [user, id] of [
      [alice, own],
      [bob, bought],
    ] as const) {
      await waitFor('stopped', async () => (await user.client.deployments.get({ params: { id } })).status === 'stopped', 30_000);
    }

    const res = await raw(alice, `/api/deployments/${own}/drift`);
    expect(res.status).toBe(200);
    const report = DriftReport.parse(await res.json());
    expect(report.parity).toMatchObject({ liveIntents: 2, matched: 2, share: 1, firstDivergence: null });
    expect(report.trades).toMatchObject({ matched: 2, missed: 0, extra: 0 });
    expect(report.candles.downtime).toBe(0);
    expect(report.costs.slippage.meanBps).toBeCloseTo(0, 6);
    expect(Math.abs(report.costs.fees.gap)).toBeLessThan(1e-9);

    // the same answer through the typed client, from the store (no new candle)
    const again = await alice.client.deployments.drift({ params: { id: own } });
    expect(again.computedAt).toBe(report.computedAt);

    await expectError(carol.client.deployments.drift({ params: { id: own } }), 404, 'NOT_FOUND');
    await expectError(bob.client.deployments.drift({ params: { id: own } }), 404, 'NOT_FOUND');
    expect((await raw(alice, `/api/deployments/${own}/drift?from=2026-01-02&to=x`)).status).toBe(400);
  }, 240_000);

  it("gives a bought strategy's buyer the report with neither its source nor its log", async () => {
    const res = await raw(bob, `/api/deployments/${bought}/drift`);
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).not.toContain(SOURCE_MARKER);
    expect(text).not.toContain(LOG_MARKER);
    expect(text).not.toContain('onCandle');
    const report = DriftReport.parse(JSON.parse(text));
    expect(report.parity.share).toBe(1);
    await expectError(alice.client.deployments.drift({ params: { id: bought } }), 404, 'NOT_FOUND');
  }, 120_000);

  it('keeps alert thresholds: PUT then GET, omitted fields at their defaults, 400 on a bad body, 404 to another user', async () => {
    expect(await alice.client.deployments.getDriftAlerts({ params: { id: own } })).toEqual({
      minCorrelation: 0.8,
      maxDtw: 0.2,
      maxSlippageRatio: 5,
      parityMiss: true,
    });
    const set = await alice.client.deployments.setDriftAlerts({ params: { id: own }, body: { minCorrelation: 0.6, maxDtw: null } });
    expect(set).toEqual({ minCorrelation: 0.6, maxDtw: null, maxSlippageRatio: 5, parityMiss: true });
    expect(await alice.client.deployments.getDriftAlerts({ params: { id: own } })).toEqual(set);

    for (const body of [{ minCorrelation: 2 }, { maxDtw: -1 }, { parityMiss: 'yes' }, { unknown: 1 }]) {
      const res = await raw(alice, `/api/deployments/${own}/drift/alerts`, { method: 'PUT', body: JSON.stringify(body) });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('VALIDATION_FAILED');
    }
    await expectError(carol.client.deployments.setDriftAlerts({ params: { id: own }, body: { parityMiss: false } }), 404, 'NOT_FOUND');
    await expectError(carol.client.deployments.getDriftAlerts({ params: { id: own } }), 404, 'NOT_FOUND');
    expect(await alice.client.deployments.getDriftAlerts({ params: { id: own } })).toEqual(set);
  }, 60_000);
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DriftReport } from '@stratbox/contract';
import type { Stratbox } from '../create-stratbox.js';
import { fastClock, startFastPaperStratbox } from '../deployments/live-harness-parts.js';
import { isStratboxError } from '../errors/stratbox-error.js';

/*
 * The drift report of a paper deployment: real sandbox child processes, the built-in paper
 * exchange on the synthetic candles (each candle opens at the previous close, so a market order
 * filled at the last close on paper fills at the same price at the next open in a backtest), the
 * real supervisor and runner recording what they deliver, on a clock 30 times faster than real
 * time (a '1m' candle every 2 s, leaving the order's trip to the paper exchange far inside its
 * candle). The report must show the paper exchange exact: every decision made again by the
 * replay, no slippage and no fee gap.
 */

const SYMBOL = 'BTC/USDT:USDT';

/** A long on its 2nd candle, closed on its 4th: flat before the end, so no end-of-run close differs. */
const ROUND_TRIP = `
export const meta = { timeframe: '1m' };
let n = 0;
export function onCandle(ctx, c) {
  n++;
  if (n === 2) ctx.buy(c.symbol, { quantity: 0.01, tag: 'in' });
  if (n === 4) ctx.sell(c.symbol, { quantity: 0.01, reduceOnly: true, tag: 'out' });
}
`;

const DAILY = `
export const meta = { timeframe: '1d' };
export function onCandle() {}
`;

const code = async (call: Promise<unknown>) =>
  call.then(
    () => 'resolved',
    (e: unknown) => (isStratboxError(e) ? e.code : String(e)),
  );

describe('drift service (paper)', () => {
  let stratbox: Stratbox;
  let userId: string;
  let otherId: string;
  let deploymentId: string;

  beforeAll(async () => {
    stratbox = await startFastPaperStratbox({
      clock: fastClock(30),
      drift: { refresh: false },
      billing: { plans: { free: { limits: { deployments: 5 } } } },
    });
    userId = (await stratbox.users.createUser('alice')).userId;
    otherId = (await stratbox.users.createUser('bob')).userId;
    const strategy = await stratbox.strategies.create(userId, { name: 'round trip', description: '', source: ROUND_TRIP, marketType: 'LINEAR' });
    const credential = await stratbox.credentials.create(userId, { exchange: 'paper', label: 'paper', apiKey: 'k', secret: 's', testnet: false });
    deploymentId = (await stratbox.deployments.create(userId, { strategyId: strategy.id, credentialId: credential.id, symbols: [SYMBOL] })).id;
  }, 60_000);

  afterAll(() => stratbox?.close());

  it('answers 409 before the first candle, and 404 to another user', async () => {
    // a daily strategy: its first candle closes at the next UTC midnight, not during this test
    const daily = await stratbox.strategies.create(userId, { name: 'daily', description: '', source: DAILY, marketType: 'LINEAR' });
    const credential = await stratbox.credentials.create(userId, { exchange: 'paper', label: 'paper 2', apiKey: 'k', secret: 's', testnet: false });
    const waiting = (await stratbox.deployments.create(userId, { strategyId: daily.id, credentialId: credential.id, symbols: [SYMBOL] })).id;
    expect(await code(stratbox.drift.report(userId, waiting))).toBe('CONFLICT');
    expect(await code(stratbox.drift.report(otherId, waiting))).toBe('NOT_FOUND');
    await stratbox.deployments.stop(userId, waiting);
    expect(await code(stratbox.drift.report(otherId, deploymentId))).toBe('NOT_FOUND');
    expect(await code(stratbox.drift.thresholds(otherId, deploymentId))).toBe('NOT_FOUND');
  });

  it('reports 100 % parity, no slippage and no fee gap for paper; asked again with no new candle, answers the stored report', async () => {
    await expect
      .poll(async () => (await stratbox.store.deploymentRecordings.span(deploymentId))?.count ?? 0, { timeout: 90_000, interval: 200 })
      .toBeGreaterThanOrEqual(6);
    await stratbox.deployments.stop(userId, deploymentId);
    await expect.poll(async () => (await stratbox.deployments.get(userId, deploymentId)).status, { timeout: 30_000 }).toBe('stopped');

    const report = await stratbox.drift.report(userId, deploymentId);
    expect(DriftReport.parse(report)).toEqual(report);
    expect(report.deploymentId).toBe(deploymentId);
    expect(report.candles.downtime).toBe(0);
    expect(report.parity.liveIntents).toBe(2);
    expect(report.parity.share).toBe(1);
    expect(report.parity.firstDivergence).toBeNull();
    expect(report.trades).toMatchObject({ matched: 2, missed: 0, extra: 0 });
    expect(report.costs.slippage.count).toBe(2);
    expect(report.costs.slippage.meanBps).toBeCloseTo(0, 6);
    expect(Math.abs(report.costs.fees.gap)).toBeLessThan(1e-9);
    expect(report.replay.cpuMs).toBeGreaterThan(0);
    expect(report.alerts.breached.filter((b) => b.metric === 'parity' || b.metric === 'slippage')).toEqual([]);

    // metered as the owner's compute
    const usage = await stratbox.billing.usage.get(userId);
    expect(JSON.stringify(usage)).toMatch(/compute/);

    const again = await stratbox.drift.report(userId, deploymentId);
    expect(again.computedAt).toBe(report.computedAt);
    expect(JSON.stringify(again)).toBe(JSON.stringify(report)); // as stored (JSON: -0 reads back as 0)
  }, 150_000);

  it('keeps thresholds per deployment: the body over the defaults, null turning one off', async () => {
    expect(await stratbox.drift.thresholds(userId, deploymentId)).toEqual({ minCorrelation: 0.8, maxDtw: 0.2, maxSlippageRatio: 5, parityMiss: true });
    const set = await stratbox.drift.setThresholds(userId, deploymentId, { maxDtw: null, minCorrelation: 0.5 });
    expect(set).toEqual({ minCorrelation: 0.5, maxDtw: null, maxSlippageRatio: 5, parityMiss: true });
    expect(await stratbox.drift.thresholds(userId, deploymentId)).toEqual(set);
    // new thresholds: the stored report is computed again with them
    const report = await stratbox.drift.report(userId, deploymentId);
    expect(report.alerts.thresholds).toEqual(set);
  }, 60_000);

  it('refuses a replay with 402 PLAN_LIMIT_EXCEEDED once the compute allowance is used up, as for backtests', async () => {
    await stratbox.billing.usage.addCompute(userId, 1e12);
    // other thresholds: the stored report no longer answers, a replay is needed
    await stratbox.drift.setThresholds(userId, deploymentId, { minCorrelation: 0.4 });
    expect(await code(stratbox.drift.report(userId, deploymentId))).toBe('PLAN_LIMIT_EXCEEDED');
  }, 60_000);
});

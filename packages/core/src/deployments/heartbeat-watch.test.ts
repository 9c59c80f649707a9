import { afterEach, describe, expect, it } from 'vitest';
import { NOTIFICATION_EVENT_CATALOGUE } from '@stratbox/contract';
import type { MarketData } from '../ports/market-data.js';
import { flatMarketData } from './live-harness-parts.js';
import { startLiveHarness, type LiveHarness } from './live-faults-harness.js';

/*
 * The dead-man alert in the real runner (live-faults-harness.ts: the real ccxt class against the
 * Binance double, a hand-moved clock, each poll called by the test): a deployment whose candle
 * feed stops gets `deployment.heartbeat.missed` once per silence, however many polls see it.
 */

const MINUTE = 60_000;
const LISTENS = `
export const meta = { timeframe: '1m' };
export function onCandle(ctx, c) { ctx.log('candle', c.time); }
`;

/** Flat candles that stop (none at all) while `stopped` is true. */
function stoppableFeed() {
  const flat = flatMarketData();
  const feed = {
    stopped: false,
    marketData: {
      async getCandles(request) {
        const answer = await flat.getCandles(request);
        if (!feed.stopped) return answer;
        const none = new Float64Array(0);
        return { ...answer, series: { ...answer.series, length: 0, time: none, open: none, high: none, low: none, close: none, volume: none } };
      },
    } satisfies MarketData,
  };
  return feed;
}

describe('dead-man alert (deployment.heartbeat.missed)', () => {
  let h: LiveHarness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  const alerts = async (harness: LiveHarness) =>
    (await harness.store.notificationEvents.list(harness.deployment.userId, { limit: 50 })).filter((e) => e.type === 'deployment.heartbeat.missed');

  it('once per silence, not once per poll: the feed stops, then resumes and stops again', async () => {
    h = await startLiveHarness(LISTENS);
    const feed = stoppableFeed();
    const runner = await h.runner({ marketData: feed.marketData });
    expect(await runner.start()).toBeNull();
    h.clock.nextCandle();
    expect(await runner.cycle()).toBeNull();
    const candles = async () => (await h!.logs()).filter((l) => l.startsWith('candle ')).length;
    expect(await candles()).toBe(1);
    const lastCandle = Math.floor(h.clock.now().getTime() / MINUTE) * MINUTE - MINUTE;

    feed.stopped = true;
    for (let k = 1; k <= 2; k++) {
      h.clock.advance(MINUTE);
      expect(await runner.cycle()).toBeNull();
      expect(await runner.cycle()).toBeNull();
    }
    expect(await alerts(h)).toEqual([]); // two periods missed: not yet
    h.clock.advance(MINUTE);
    expect(await runner.cycle()).toBeNull();
    const first = await alerts(h);
    expect(first).toHaveLength(1);
    expect(first[0]).toMatchObject({
      userId: h.deployment.userId,
      severity: 'critical',
      subjectKind: 'deployment',
      subjectId: h.deployment.id,
      time: h.clock.now().toISOString(),
    });
    expect(NOTIFICATION_EVENT_CATALOGUE['deployment.heartbeat.missed'].data.parse(first[0]!.data)).toEqual({
      deploymentId: h.deployment.id,
      timeframe: '1m',
      lastCandleAt: new Date(lastCandle).toISOString(),
      missedPeriods: 3,
    });
    // more polls and more periods of the same silence: still one
    for (let k = 0; k < 4; k++) {
      h.clock.advance(MINUTE);
      expect(await runner.cycle()).toBeNull();
      expect(await runner.cycle()).toBeNull();
    }
    expect(await alerts(h)).toHaveLength(1);

    // the feed resumes: the newest candle is processed, the silence is over
    feed.stopped = false;
    expect(await runner.cycle()).toBeNull();
    expect(await candles()).toBeGreaterThan(1);
    const resumedAt = Math.floor(h.clock.now().getTime() / MINUTE) * MINUTE - MINUTE;
    expect(await alerts(h)).toHaveLength(1);

    // and stops again: a second alert, three periods after the last candle processed
    feed.stopped = true;
    for (let k = 0; k < 3; k++) {
      h.clock.advance(MINUTE);
      expect(await runner.cycle()).toBeNull();
      expect(await runner.cycle()).toBeNull();
    }
    const both = await alerts(h);
    expect(both).toHaveLength(2);
    expect(both[0]!.data).toEqual({ deploymentId: h.deployment.id, timeframe: '1m', lastCandleAt: new Date(resumedAt).toISOString(), missedPeriods: 3 });
    expect((await h.current()).status).toBe('running');
  }, 90_000);

  it('a deployment that never gets a candle is measured from its start', async () => {
    h = await startLiveHarness(LISTENS);
    const feed = stoppableFeed();
    feed.stopped = true;
    const runner = await h.runner({ marketData: feed.marketData });
    expect(await runner.start()).toBeNull();
    const startedAt = (await h.current()).startedAt;
    for (let k = 0; k < 5; k++) {
      h.clock.advance(MINUTE);
      expect(await runner.cycle()).toBeNull();
    }
    const found = await alerts(h);
    expect(found).toHaveLength(1);
    expect(found[0]!.data).toEqual({ deploymentId: h.deployment.id, timeframe: '1m', lastCandleAt: null, missedPeriods: 3 });
    expect(found[0]!.summary).toBe(`Deployment ${h.deployment.id} processed no 1m candle for 3 periods (since it started at ${startedAt})`);
  }, 90_000);
});

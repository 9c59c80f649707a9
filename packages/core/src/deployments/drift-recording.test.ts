import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import type { Stratbox } from '../create-stratbox.js';
import type { RecordedIntent } from '../drift/drift-types.js';
import type { Store } from '../ports/store.js';
import { createMemoryStore } from '../testing/memory-store.js';
import { fastClock, startFastPaperStratbox } from './live-harness-parts.js';

/*
 * What a paper deployment records for its drift report (drift-recorder.ts), through the whole
 * service (the real supervisor, real sandbox child processes, the paper exchange) on a clock 400
 * times faster than real time: each candle `onCandle` got, once, with the equity the strategy was
 * shown; each intent at its candle; one run per start. Then the service restarts on the same
 * Store: a second run is recorded as resumed and the candles go on without a duplicate.
 */

const SYMBOL = 'BTC/USDT:USDT';
const EVERYTHING = [0, Number.MAX_SAFE_INTEGER] as const;

/** Buys on odd candles, closes on even ones, and after the first buy fills places a far limit from onOrder. */
const BUY_AND_CLOSE = `
export const meta = { timeframe: '1m' };
let n = 0;
export function onCandle(ctx, c) {
  n++;
  ctx.log('seen', n, c.time, ctx.equity());
  if (n % 2 === 1) ctx.buy(c.symbol, { quantity: 0.01, tag: 'in' + n });
  else ctx.close(c.symbol);
}
export function onOrder(ctx, o) {
  if (o.tag === 'in1' && o.status === 'filled') ctx.buy(o.symbol, { type: 'limit', price: Math.round(o.price * 0.5), quantity: 0.01, tag: 'far' });
}
`;

describe('recording what a paper deployment saw', () => {
  // One Store for both runs of the service: closing the first Stratbox must not close it.
  const shared = createMemoryStore();
  const store: Store = { ...shared, close: async () => {} };
  // ... and the credential, sealed by the first, must open in the second.
  const masterKey = randomBytes(32);
  // One clock (400 times faster than real time) for both, so that time goes on across the restart.
  const clock = fastClock(400);
  const started: Stratbox[] = [];
  afterAll(async () => {
    for (const s of started) await s.close();
    await shared.close();
  });

  it('records each delivered candle once with the equity shown, the intents at their candle, and a run per start, across a restart', async () => {
    const first = await startFastPaperStratbox({ store, masterKey, clock });
    started.push(first);
    const { userId } = await first.users.createUser('drifty');
    const strategy = await first.strategies.create(userId, { name: 'in-out', description: '', source: BUY_AND_CLOSE, marketType: 'LINEAR' });
    const credential = await first.credentials.create(userId, { exchange: 'paper', label: 'paper', apiKey: 'k', secret: 's', testnet: false });
    const { id } = await first.deployments.create(userId, { strategyId: strategy.id, credentialId: credential.id, symbols: [SYMBOL] });
    const recordings = shared.deploymentRecordings;
    const candleCount = async () => (await recordings.span(id))?.count ?? 0;

    await expect.poll(candleCount, { timeout: 60_000, interval: 50 }).toBeGreaterThanOrEqual(5);
    await first.close();
    const beforeRestart = await recordings.listCandles(id, ...EVERYTHING);
    expect((await first.deployments.get(userId, id)).status).toBe('running');

    // The service starts again on the same Store and resumes the deployment.
    const second = await startFastPaperStratbox({ store, masterKey, clock });
    started.push(second);
    await expect.poll(candleCount, { timeout: 60_000, interval: 50 }).toBeGreaterThanOrEqual(beforeRestart.length + 4);
    expect((await second.deployments.stop(userId, id)).status).toBe('stopped');

    const candles = await recordings.listCandles(id, ...EVERYTHING);
    const intents = await recordings.listIntents(id, ...EVERYTHING);
    const runs = await recordings.listRuns(id);

    // One run per start: the owner's, then the resume, each with the paper account's equity.
    expect(runs).toEqual([
      { deploymentId: id, startedAt: expect.any(String), startEquity: expect.any(Number), resumed: false },
      { deploymentId: id, startedAt: expect.any(String), startEquity: expect.any(Number), resumed: true },
    ]);
    expect(Date.parse(runs[1]!.startedAt)).toBeGreaterThan(Date.parse(runs[0]!.startedAt));

    // The first run's candles are kept as they were; the second's come after them.
    expect(candles.slice(0, beforeRestart.length)).toEqual(beforeRestart);
    const resumedCandles = candles.slice(beforeRestart.length);
    expect(resumedCandles.length).toBeGreaterThanOrEqual(4);
    expect(resumedCandles[0]!.time).toBeGreaterThan(beforeRestart[beforeRestart.length - 1]!.time);
    // Strictly increasing: no candle twice.
    for (let i = 1; i < candles.length; i++) expect(candles[i]!.time).toBeGreaterThan(candles[i - 1]!.time);

    // Each recorded candle is one onCandle call (its log line), with the equity that call was shown.
    const seen = (await second.deployments.logs(userId, id, { limit: 1000 }))
      .map((l) => /^seen (\d+) (\d+) (\S+)$/.exec(l.message))
      .filter((m) => m !== null)
      .map((m) => ({ n: Number(m[1]), time: Number(m[2]), equity: Number(m[3]) }))
      .sort((a, b) => a.time - b.time);
    expect(seen.map((s) => s.time)).toEqual(candles.map((c) => c.time));
    expect(candles.map((c) => ({ symbol: c.symbol, equity: c.equity }))).toEqual(seen.map((s) => ({ symbol: SYMBOL, equity: s.equity })));

    // The intents of each onCandle call, at its candle: a buy on odd calls, a close on even ones.
    const fromCandle = (time: number) => intents.filter((i) => i.source === 'candle' && i.candleTime === time);
    for (const { n, time } of seen) {
      const made = fromCandle(time);
      if (n % 2 === 1) {
        expect(made).toEqual([
          expect.objectContaining<Partial<RecordedIntent>>({
            kind: 'place',
            symbol: SYMBOL,
            side: 'buy',
            type: 'market',
            quantity: 0.01,
            tag: `in${n}`,
            closeAll: false,
          }),
        ]);
      } else {
        expect(made.length).toBeLessThanOrEqual(1);
        for (const i of made) expect(i).toMatchObject({ kind: 'place', symbol: SYMBOL, closeAll: true });
      }
    }
    const times = new Set(candles.map((c) => c.time));
    expect(intents.filter((i) => i.source === 'candle').every((i) => times.has(i.candleTime))).toBe(true);

    // The limit placed from onOrder after each run's first buy filled: at the candle of that buy.
    const far = intents.filter((i) => i.source === 'order');
    expect(far.length).toBeGreaterThanOrEqual(1);
    for (const i of far) {
      expect(i).toMatchObject({ kind: 'place', tag: 'far', type: 'limit', side: 'buy' });
      expect(fromCandle(i.candleTime).map((c) => c.tag)).toEqual(['in1']);
    }
    // Every intent once.
    expect(new Set(intents.map((i) => i.id)).size).toBe(intents.length);

    // Deleting the deployment deletes its recording.
    await second.deployments.delete(userId, id);
    expect(await recordings.span(id)).toBeNull();
    expect(await recordings.listIntents(id, ...EVERYTHING)).toEqual([]);
    expect(await recordings.listRuns(id)).toEqual([]);
  }, 180_000);

  it('sends nothing for a candle it could not record: the cycle fails as on any Store error', async () => {
    const failing = createMemoryStore();
    const down: Store = {
      ...failing,
      deploymentRecordings: {
        ...failing.deploymentRecordings,
        async recordCandle() {
          throw new Error('recording down');
        },
      },
    };
    const stratbox = await startFastPaperStratbox({ store: down });
    started.push(stratbox);
    const { userId } = await stratbox.users.createUser('unrecorded');
    const strategy = await stratbox.strategies.create(userId, { name: 'in-out', description: '', source: BUY_AND_CLOSE, marketType: 'LINEAR' });
    const credential = await stratbox.credentials.create(userId, { exchange: 'paper', label: 'paper', apiKey: 'k', secret: 's', testnet: false });
    const { id } = await stratbox.deployments.create(userId, { strategyId: strategy.id, credentialId: credential.id, symbols: [SYMBOL] });

    const messages = async () => (await stratbox.deployments.logs(userId, id, { limit: 1000 })).map((l) => l.message);
    // Each cycle that delivered a candle failed as on a Store error: a warning, a failure counted as transient.
    const failed = async () => (await messages()).filter((m) => m.startsWith('Exchange or market data problem') && m.includes('recording down')).length;
    await expect.poll(failed, { timeout: 60_000, interval: 50 }).toBeGreaterThanOrEqual(3);
    await stratbox.deployments.stop(userId, id);
    // The strategy's calls on those candles went nowhere: no log line of theirs, no order sent.
    expect((await messages()).some((m) => m.startsWith('seen '))).toBe(false);
    expect((await stratbox.deployments.orders(userId, id, { limit: 100 })).orders).toEqual([]);
    expect(await failing.deploymentRecordings.listRuns(id)).toHaveLength(1);
  }, 120_000);
});

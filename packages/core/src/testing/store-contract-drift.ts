import { describe, expect, it } from 'vitest';
import type { DriftReport, DriftThresholds } from '@stratbox/contract';
import { at, uid } from './contract-fixtures.js';
import type { RecordedCandle, RecordedIntent, RecordedRun } from '../drift/drift-types.js';
import type { Store, StoredDriftReport } from '../ports/store.js';

/*
 * The Store contract of drift reports (store-drift.ts): what a deployment records as it runs
 * (candles once, intents once by id, runs), the stored reports and the alert thresholds. Run by
 * `describeStoreContract` with its shared store; every test uses deployment ids of its own
 * (recordings name their deployment without a foreign key).
 */

/** What the enclosing suite gives each test. */
export type DriftContext = () => { store: Store };

const HOUR = 3_600_000;
/** A candle time well past 2^32 ms, so a 32-bit column or a float4 would show. */
const T0 = Date.UTC(2026, 2, 1);

function candle(deploymentId: string, symbol: string, hour: number, overrides: Partial<RecordedCandle> = {}): RecordedCandle {
  return {
    deploymentId,
    symbol,
    time: T0 + hour * HOUR,
    open: 100.1 + hour,
    high: 101.234567890123 + hour,
    low: 99.5 + hour,
    close: 100.75 + hour,
    volume: 1234.5678901234,
    equity: 10_000.123456789 + hour,
    recordedAt: at(hour),
    ...overrides,
  };
}

function intent(deploymentId: string, hour: number, overrides: Partial<RecordedIntent> = {}): RecordedIntent {
  return {
    id: uid('int'),
    deploymentId,
    candleTime: T0 + hour * HOUR,
    source: 'candle',
    kind: 'place',
    symbol: 'BTC/USDT:USDT',
    side: 'buy',
    type: 'limit',
    quantity: 0.001,
    size: null,
    price: 99_999.123456789,
    reduceOnly: false,
    closeAll: false,
    tag: 'entry',
    guestId: 'o1',
    recordedAt: at(hour),
    ...overrides,
  };
}

function report(deploymentId: string, matched: number): DriftReport {
  const thresholds: DriftThresholds = { minCorrelation: 0.8, maxDtw: 0.2, maxSlippageRatio: 5, parityMiss: true };
  return {
    deploymentId,
    strategyVersion: 2,
    window: { from: at(0), to: at(3600) },
    computedAt: at(4000),
    candles: { recorded: 24, downtime: 1 },
    runs: [{ startedAt: at(0), startEquity: 10_000, resumed: false }],
    parity: { liveIntents: 3, matched, share: matched / 3, firstDivergence: null },
    trades: { matched: 1, missed: 0, extra: 0, meanOffsetMs: 0, list: [] },
    costs: {
      slippage: { count: 0, meanBps: null, p50Bps: null, p95Bps: null, modelBps: 5, histogram: [] },
      fees: { live: 1.25, replay: 1.2, gap: 0.05 },
      funding: { live: null, replay: 0, gap: null },
    },
    equity: {
      points: [{ time: at(0), live: 10_000, replay: 10_000 }],
      correlation: null,
      dtw: 0.012345678901234,
      trackingError: null,
      finalDifference: -0.5,
      maxDrawdown: { live: 0.1, replay: 0.09, difference: 0.01 },
    },
    waterfall: { replayPnl: 10, missedTrades: 0, extraTrades: 0, slippage: -0.25, fees: -0.05, funding: 0, downtime: 0, remainder: -0.2, livePnl: 9.5 },
    alerts: { thresholds, breached: [] },
    replay: { cpuMs: 12.5 },
  };
}

export function describeDriftContract(context: DriftContext) {
  describe('drift: deployment recordings', () => {
    it('lists candles by time then symbol, exactly as recorded, within [from, to)', async () => {
      const { store } = context();
      const dep = uid('dep');
      const recorded = [candle(dep, 'ETH/USDT:USDT', 1), candle(dep, 'BTC/USDT:USDT', 1), candle(dep, 'BTC/USDT:USDT', 0), candle(dep, 'BTC/USDT:USDT', 2)];
      for (const c of recorded) await store.deploymentRecordings.recordCandle(c, []);
      await store.deploymentRecordings.recordCandle(candle(uid('dep'), 'BTC/USDT:USDT', 1), []);

      const all = await store.deploymentRecordings.listCandles(dep, T0, T0 + 3 * HOUR);
      expect(all).toEqual([recorded[2], recorded[1], recorded[0], recorded[3]]);
      expect(await store.deploymentRecordings.listCandles(dep, T0 + HOUR, T0 + 2 * HOUR)).toEqual([recorded[1], recorded[0]]);
      expect(await store.deploymentRecordings.listCandles(dep, T0 + 3 * HOUR, T0 + 9 * HOUR)).toEqual([]);
      expect(await store.deploymentRecordings.listCandles(uid('dep'), 0, Number.MAX_SAFE_INTEGER)).toEqual([]);
    });

    it('records a candle once: a second recording of (deployment, symbol, time) keeps the first, and still adds new intents', async () => {
      const { store } = context();
      const dep = uid('dep');
      const first = candle(dep, 'BTC/USDT:USDT', 5);
      const a = intent(dep, 5, { guestId: 'o1' });
      await store.deploymentRecordings.recordCandle(first, [a]);
      const b = intent(dep, 5, {
        guestId: 'o2',
        side: 'sell',
        type: 'market',
        price: null,
        quantity: null,
        size: 0.5,
        tag: null,
        reduceOnly: true,
        closeAll: true,
      });
      await store.deploymentRecordings.recordCandle({ ...first, close: 1, equity: 2, recordedAt: at(99) }, [a, b]);

      expect(await store.deploymentRecordings.listCandles(dep, 0, Number.MAX_SAFE_INTEGER)).toEqual([first]);
      expect(await store.deploymentRecordings.listIntents(dep, 0, Number.MAX_SAFE_INTEGER)).toEqual([a, b]);
    });

    it('lists intents in recorded order within [from, to) of their candle time, and records each id once', async () => {
      const { store } = context();
      const dep = uid('dep');
      const i3 = intent(dep, 3, { guestId: 'o1' });
      const i1 = intent(dep, 1, { guestId: 'o2', source: 'order', kind: 'cancel', side: null, type: null, quantity: null, price: null, tag: null });
      const i2 = intent(dep, 2, { guestId: 'o3', source: 'order' });
      await store.deploymentRecordings.recordCandle(candle(dep, 'BTC/USDT:USDT', 3), [i3]);
      await store.deploymentRecordings.recordIntents([i1, i2]);
      await store.deploymentRecordings.recordIntents([i1, { ...i2, tag: 'changed' }]);
      await store.deploymentRecordings.recordIntents([]);
      await store.deploymentRecordings.recordIntents([intent(uid('dep'), 2)]);

      expect(await store.deploymentRecordings.listIntents(dep, T0, T0 + 4 * HOUR)).toEqual([i3, i1, i2]);
      expect(await store.deploymentRecordings.listIntents(dep, T0 + 2 * HOUR, T0 + 3 * HOUR)).toEqual([i2]);
      expect(await store.deploymentRecordings.listIntents(dep, T0 + 4 * HOUR, T0 + 5 * HOUR)).toEqual([]);
    });

    it('records a candle and its intents atomically in a transaction that fails', async () => {
      const { store } = context();
      const dep = uid('dep');
      await expect(
        store.transaction(async (tx) => {
          await tx.deploymentRecordings.recordCandle(candle(dep, 'BTC/USDT:USDT', 0), [intent(dep, 0)]);
          await tx.deploymentRecordings.recordRun({ deploymentId: dep, startedAt: at(0), startEquity: 1, resumed: false });
          throw new Error('boom');
        }),
      ).rejects.toThrow('boom');
      expect(await store.deploymentRecordings.span(dep)).toBeNull();
      expect(await store.deploymentRecordings.listIntents(dep, 0, Number.MAX_SAFE_INTEGER)).toEqual([]);
      expect(await store.deploymentRecordings.listRuns(dep)).toEqual([]);

      await store.transaction(async (tx) => {
        await tx.deploymentRecordings.recordCandle(candle(dep, 'BTC/USDT:USDT', 0), [intent(dep, 0)]);
      });
      expect(await store.deploymentRecordings.span(dep)).toEqual({ first: T0, last: T0, count: 1 });
    });

    it('lists runs oldest first, with a null start equity kept as null', async () => {
      const { store } = context();
      const dep = uid('dep');
      const runs: RecordedRun[] = [
        { deploymentId: dep, startedAt: at(0), startEquity: 10_000.5, resumed: false },
        { deploymentId: dep, startedAt: at(60), startEquity: null, resumed: true },
        { deploymentId: dep, startedAt: at(120), startEquity: 9_876.54321, resumed: false },
      ];
      for (const r of runs) await store.deploymentRecordings.recordRun(r);
      await store.deploymentRecordings.recordRun({ deploymentId: uid('dep'), startedAt: at(30), startEquity: 1, resumed: false });
      expect(await store.deploymentRecordings.listRuns(dep)).toEqual(runs);
      expect(await store.deploymentRecordings.listRuns(uid('dep'))).toEqual([]);
    });

    it('answers the span of recorded candles, or null when none', async () => {
      const { store } = context();
      const dep = uid('dep');
      expect(await store.deploymentRecordings.span(dep)).toBeNull();
      await store.deploymentRecordings.recordCandle(candle(dep, 'BTC/USDT:USDT', 7), []);
      await store.deploymentRecordings.recordCandle(candle(dep, 'ETH/USDT:USDT', 2), []);
      await store.deploymentRecordings.recordCandle(candle(dep, 'BTC/USDT:USDT', 2), []);
      await store.deploymentRecordings.recordCandle(candle(dep, 'BTC/USDT:USDT', 2), []);
      expect(await store.deploymentRecordings.span(dep)).toEqual({ first: T0 + 2 * HOUR, last: T0 + 7 * HOUR, count: 3 });
    });

    it('deletes everything of one deployment (recording, reports, thresholds) and nothing of another', async () => {
      const { store } = context();
      const dep = uid('dep');
      const other = uid('dep');
      for (const d of [dep, other]) {
        await store.deploymentRecordings.recordCandle(candle(d, 'BTC/USDT:USDT', 0), [intent(d, 0)]);
        await store.deploymentRecordings.recordIntents([intent(d, 0, { source: 'order' })]);
        await store.deploymentRecordings.recordRun({ deploymentId: d, startedAt: at(0), startEquity: 1, resumed: false });
        await store.driftReports.save({ deploymentId: d, windowKey: 'all', recordedUpTo: T0, report: report(d, 3), updatedAt: at(1) });
        await store.driftReports.saveThresholds(d, { minCorrelation: null, maxDtw: 0.3, maxSlippageRatio: 2, parityMiss: false });
      }
      await store.deploymentRecordings.deleteByDeployment(dep);
      await store.deploymentRecordings.deleteByDeployment(uid('dep'));

      expect(await store.deploymentRecordings.span(dep)).toBeNull();
      expect(await store.deploymentRecordings.listIntents(dep, 0, Number.MAX_SAFE_INTEGER)).toEqual([]);
      expect(await store.deploymentRecordings.listRuns(dep)).toEqual([]);
      expect(await store.driftReports.find(dep, 'all')).toBeNull();
      expect(await store.driftReports.findThresholds(dep)).toBeNull();

      expect(await store.deploymentRecordings.span(other)).toEqual({ first: T0, last: T0, count: 1 });
      expect(await store.deploymentRecordings.listIntents(other, 0, Number.MAX_SAFE_INTEGER)).toHaveLength(2);
      expect(await store.deploymentRecordings.listRuns(other)).toHaveLength(1);
      expect(await store.driftReports.find(other, 'all')).not.toBeNull();
      expect(await store.driftReports.findThresholds(other)).not.toBeNull();
    });
  });

  describe('drift: reports and thresholds', () => {
    it('finds a report by (deployment, window key), as saved, and a save replaces it', async () => {
      const { store } = context();
      const dep = uid('dep');
      expect(await store.driftReports.find(dep, 'all')).toBeNull();
      const first: StoredDriftReport = { deploymentId: dep, windowKey: 'all', recordedUpTo: T0 + 5 * HOUR, report: report(dep, 2), updatedAt: at(10) };
      const windowed: StoredDriftReport = {
        deploymentId: dep,
        windowKey: `${at(0)}/${at(3600)}`,
        recordedUpTo: T0 + HOUR,
        report: report(dep, 1),
        updatedAt: at(11),
      };
      await store.driftReports.save(first);
      await store.driftReports.save(windowed);
      expect(await store.driftReports.find(dep, 'all')).toEqual(first);
      expect(await store.driftReports.find(dep, windowed.windowKey)).toEqual(windowed);
      expect(await store.driftReports.find(uid('dep'), 'all')).toBeNull();

      const second: StoredDriftReport = { ...first, recordedUpTo: T0 + 9 * HOUR, report: report(dep, 3), updatedAt: at(20) };
      await store.driftReports.save(second);
      expect(await store.driftReports.find(dep, 'all')).toEqual(second);
      expect(await store.driftReports.find(dep, windowed.windowKey)).toEqual(windowed);
    });

    it('keeps thresholds per deployment, null until set, replaced by a save', async () => {
      const { store } = context();
      const dep = uid('dep');
      expect(await store.driftReports.findThresholds(dep)).toBeNull();
      const first: DriftThresholds = { minCorrelation: 0.75, maxDtw: null, maxSlippageRatio: 3.5, parityMiss: true };
      await store.driftReports.saveThresholds(dep, first);
      expect(await store.driftReports.findThresholds(dep)).toEqual(first);
      const second: DriftThresholds = { minCorrelation: null, maxDtw: 0.1, maxSlippageRatio: null, parityMiss: false };
      await store.driftReports.saveThresholds(dep, second);
      expect(await store.driftReports.findThresholds(dep)).toEqual(second);
      expect(await store.driftReports.findThresholds(uid('dep'))).toBeNull();
    });
  });
}

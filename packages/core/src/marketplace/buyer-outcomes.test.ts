import { describe, expect, it } from 'vitest';
import { ListingRecordDetail } from '@stratbox/contract';
import type { DeploymentRecord, ListingRecord, OrderRecord, PurchaseRecord, Store } from '../ports/store.js';
import type { VerificationRecordRow } from '../ports/store-verification.js';
import { createMemoryStore } from '../testing/memory-store.js';
import { newId } from '../util/ids.js';
import { createListingRecordService } from './listing-record-service.js';
import { appendPoints } from './verification/equity-points.js';

/*
 * Buyers' outcomes on a listing's record, on the memory store: buyers, purchases, paper
 * deployments with known fills and recorded runs written as the service and the runner write
 * them, then the record route's `buyers`.
 */

const HOUR = 3_600_000;
const T0 = Date.parse('2026-03-01T00:00:00.000Z');
const iso = (ms: number) => new Date(ms).toISOString();
/** The forward record's equity: 10,000 at T0, +100 each hour up to 11,000 at T0 + 10 h. */
const FORWARD = Array.from({ length: 11 }, (_, i) => [T0 + i * HOUR, 10_000 + 100 * i] as [number, number]);

function listingOf(sellerId: string, strategyId: string): ListingRecord {
  return {
    id: newId('listing'),
    sellerId,
    strategyId,
    strategyVersion: 1,
    name: 'Trend',
    description: 'Rides trends',
    price: 0,
    tags: [],
    ratingSum: 0,
    reviewCount: 0,
    purchaseCount: 0,
    status: 'listed',
    createdAt: iso(T0),
    updatedAt: iso(T0),
    recordSummary: null,
  };
}

function recordOf(listing: ListingRecord): VerificationRecordRow {
  const metrics = {
    totalReturn: 0.1,
    cagr: null,
    maxDrawdown: 0,
    maxDrawdownRecoveryDays: null,
    sharpe: null,
    psr: null,
    dsr: null,
    exposure: null,
    tradeCount: 0,
    feesPaid: 0,
    fundingPaid: 0,
  };
  return {
    id: newId('verificationRecord'),
    listingId: listing.id,
    sellerId: listing.sellerId,
    strategyId: listing.strategyId,
    status: 'ready',
    error: null,
    identity: {
      strategyVersion: 1,
      sourceSha256: 'a'.repeat(64),
      params: {},
      symbols: ['BTC/USDT:USDT'],
      timeframe: '1h',
      marketType: 'LINEAR',
      fees: { maker: 0.0002, taker: 0.0005 },
      slippage: 0.0005,
      funding: true,
      initialCapital: 10_000,
    },
    backtest: { start: iso(T0 - 100 * HOUR), end: iso(T0), metrics, equity: [] },
    forward: {
      start: iso(T0),
      lastCandleAt: iso(FORWARD.at(-1)![0]),
      candles: FORWARD.length,
      days: 11 / 24,
      metrics,
      equity: FORWARD.map(([t, equity]) => ({ time: iso(t), equity })),
      points: appendPoints(undefined, FORWARD),
    },
    searchEffort: { backtests: 1, trials: 0, total: 1 },
    badge: 'insufficient',
    createdAt: iso(T0),
    supersededAt: null,
    updatedAt: iso(T0),
  };
}

async function buy(store: Store, buyerId: string, listing: ListingRecord, at: number, status: PurchaseRecord['status'] = 'completed') {
  await store.purchases.insertIfAbsent({
    id: newId('purchase'),
    buyerId,
    listingId: listing.id,
    sellerId: listing.sellerId,
    strategyId: listing.strategyId,
    strategyVersion: 1,
    price: 0,
    status,
    checkoutSessionId: null,
    checkoutUrl: null,
    createdAt: iso(at),
    updatedAt: iso(at),
    completedAt: status === 'completed' ? iso(at) : null,
  });
}

/** A fill: [side, quantity, price, fee]. */
type Fill = ['buy' | 'sell', number, number, number];

/** A stopped paper deployment of `strategyId` created at `createdAt`, its fills, and its first run (start equity; null: none recorded). */
async function deploy(store: Store, userId: string, strategyId: string, createdAt: number, fills: Fill[], startEquity: number | null, startedAt = createdAt) {
  const deployment: DeploymentRecord = {
    id: newId('deployment'),
    userId,
    strategyId,
    strategyVersion: 1,
    credentialId: newId('credential'),
    symbols: ['BTC/USDT:USDT'],
    params: {},
    status: 'stopped',
    error: null,
    createdAt: iso(createdAt),
    updatedAt: iso(createdAt),
    startedAt: iso(startedAt),
    stoppedAt: iso(startedAt + HOUR),
  };
  await store.deployments.insert(deployment);
  for (const [i, [side, quantity, price, fee]] of fills.entries()) {
    const at = iso(startedAt + (i + 1) * 60_000);
    const order: OrderRecord = {
      id: newId('order'),
      userId,
      deploymentId: deployment.id,
      clientOrderId: `sbx${newId('order')
        .replace(/[^A-Za-z0-9]/g, '')
        .slice(0, 24)}`,
      exchangeOrderId: null,
      symbol: 'BTC/USDT:USDT',
      side,
      type: 'market',
      quantity,
      price: null,
      stopPrice: null,
      reduceOnly: false,
      status: 'filled',
      filledQuantity: quantity,
      averagePrice: price,
      fee,
      createdAt: at,
      updatedAt: at,
    };
    await store.orders.insert(order);
  }
  if (startEquity !== null) await store.deploymentRecordings.recordRun({ deploymentId: deployment.id, startedAt: iso(startedAt), startEquity, resumed: false });
  return deployment;
}

async function setUp() {
  const store = createMemoryStore();
  const sellerId = newId('user');
  const strategyId = newId('strategy');
  const listing = listingOf(sellerId, strategyId);
  await store.listings.insert(listing);
  await store.verificationRecords.insert(recordOf(listing));
  const service = createListingRecordService({ store });
  return { store, sellerId, strategyId, listing, service };
}

describe("buyers' outcomes on a listing's record", () => {
  it('shows the median realized return since purchase of 3 buyers beside the forward record over the same days, naming no buyer', async () => {
    const { store, strategyId, listing, service } = await setUp();
    const [a, b, c, early, pending, unknown, stranger] = Array.from({ length: 7 }, () => newId('user'));
    for (const buyer of [a!, b!, c!, early!, unknown!]) await buy(store, buyer, listing, T0 + HOUR);
    await buy(store, pending!, listing, T0 + HOUR, 'pending');

    // a: +10 on 1 less 0.2 fees = +9.8 on 10,000; b: -5 on 2 = -10 on 10,000; c: +30 on 20,000 (two deployments).
    const ids = [
      await deploy(
        store,
        a!,
        strategyId,
        T0 + 2 * HOUR,
        [
          ['buy', 1, 100, 0.1],
          ['sell', 1, 110, 0.1],
        ],
        10_000,
      ),
      await deploy(
        store,
        b!,
        strategyId,
        T0 + 4 * HOUR,
        [
          ['buy', 2, 100, 0],
          ['sell', 2, 95, 0],
        ],
        10_000,
      ),
      await deploy(
        store,
        c!,
        strategyId,
        T0 + 6 * HOUR,
        [
          ['buy', 1, 100, 0],
          ['sell', 1, 120, 0],
        ],
        10_000,
      ),
      await deploy(
        store,
        c!,
        strategyId,
        T0 + 7 * HOUR,
        [
          ['sell', 1, 100, 0],
          ['buy', 1, 90, 0],
        ],
        10_000,
      ),
      // Not counted: a's deployment of another strategy, a deployment made before the purchase,
      // a pending purchase's, one with no recorded start equity, and a stranger's (no purchase).
      await deploy(
        store,
        a!,
        newId('strategy'),
        T0 + 3 * HOUR,
        [
          ['buy', 1, 100, 0],
          ['sell', 1, 1, 0],
        ],
        10_000,
      ),
      await deploy(
        store,
        early!,
        strategyId,
        T0 + HOUR - 1,
        [
          ['buy', 1, 100, 0],
          ['sell', 1, 500, 0],
        ],
        10_000,
      ),
      await deploy(
        store,
        pending!,
        strategyId,
        T0 + 2 * HOUR,
        [
          ['buy', 1, 100, 0],
          ['sell', 1, 500, 0],
        ],
        10_000,
      ),
      await deploy(
        store,
        unknown!,
        strategyId,
        T0 + 2 * HOUR,
        [
          ['buy', 1, 100, 0],
          ['sell', 1, 500, 0],
        ],
        null,
      ),
      await deploy(
        store,
        stranger!,
        strategyId,
        T0 + 2 * HOUR,
        [
          ['buy', 1, 100, 0],
          ['sell', 1, 500, 0],
        ],
        10_000,
      ),
    ].map((d) => d.id);

    const detail = await service.get(newId('user'), listing.id);
    expect(ListingRecordDetail.parse(detail)).toEqual(detail);
    expect(detail.buyers!.count).toBe(3);
    // Returns 0.00098, -0.001, 0.0015: the median is a's.
    expect(detail.buyers!.medianReturn).toBeCloseTo(9.8 / 10_000, 12);
    // Forward from each first start (T0+2h: 10,200; T0+4h: 10,400; T0+6h: 10,600) to 11,000: the median is b's.
    expect(detail.buyers!.forwardReturnSameDays).toBeCloseTo(11_000 / 10_400 - 1, 12);
    const text = JSON.stringify(detail);
    for (const id of [a, b, c, early, pending, unknown, stranger, ...ids]) expect(text).not.toContain(id);
  });

  it('is null with two buyers, and counts the third once they run it', async () => {
    const { store, strategyId, listing, service } = await setUp();
    const [a, b, c] = Array.from({ length: 3 }, () => newId('user'));
    for (const buyer of [a!, b!, c!]) await buy(store, buyer, listing, T0 + HOUR);
    await deploy(
      store,
      a!,
      strategyId,
      T0 + 2 * HOUR,
      [
        ['buy', 1, 100, 0],
        ['sell', 1, 110, 0],
      ],
      10_000,
    );
    await deploy(
      store,
      b!,
      strategyId,
      T0 + 2 * HOUR,
      [
        ['buy', 1, 100, 0],
        ['sell', 1, 90, 0],
      ],
      10_000,
    );
    expect((await service.get(a!, listing.id)).buyers).toBeNull();

    // c runs it with no fill yet (a return of 0), started between two forward points (from 10,100 at T0+1h).
    await deploy(store, c!, strategyId, T0 + HOUR + 1, [], 5_000, T0 + HOUR + 30 * 60_000);
    const detail = await service.get(c!, listing.id);
    // Forward returns 800/10,200 (a, b) and 900/10,100 (c): the median is 800/10,200.
    expect(detail.buyers).toEqual({ count: 3, medianReturn: 0, forwardReturnSameDays: expect.closeTo(11_000 / 10_200 - 1, 12) });
  });

  it("does not count another listing's buyers, and has no forward figure when the current record does not cover their days", async () => {
    const { store, sellerId, strategyId, listing, service } = await setUp();
    const other = listingOf(sellerId, strategyId);
    await store.listings.insert(other);
    const later = { ...recordOf(other), forward: { ...recordOf(other).forward, start: iso(T0 + 100 * HOUR) } };
    await store.verificationRecords.insert(later);
    const buyers = Array.from({ length: 3 }, () => newId('user'));
    for (const buyer of buyers) {
      await buy(store, buyer, other, T0 + HOUR);
      await deploy(
        store,
        buyer,
        strategyId,
        T0 + 2 * HOUR,
        [
          ['buy', 1, 100, 0],
          ['sell', 1, 110, 0],
        ],
        10_000,
      );
    }
    expect((await service.get(sellerId, listing.id)).buyers).toBeNull();
    expect((await service.get(sellerId, other.id)).buyers).toEqual({ count: 3, medianReturn: 0.001, forwardReturnSameDays: null });
  });
});

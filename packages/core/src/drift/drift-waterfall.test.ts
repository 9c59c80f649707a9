import { DriftReport } from '@stratbox/contract';
import { describe, expect, it } from 'vitest';
import { createRandom } from '../engine/guest/determinism.js';
import { computeDrift } from './compute-drift.js';
import type { DriftInput, LiveFill, RecordedCandle, ReplayOrder } from './drift-types.js';
import { DEFAULT_DRIFT_THRESHOLDS } from './drift-types.js';
import { DEP } from './test-fixtures.js';

const HOUR = 3_600_000;
const T0 = Date.UTC(2026, 2, 1);
const SYMBOLS = ['BTC/USDT:USDT', 'ETH/USDT:USDT'];

/**
 * A random, internally inconsistent deployment (seeded): random prices and equities on both
 * sides, random replay orders, live fills that are near copies, some dropped, some extra, some
 * with a different guest id, random downtime and funding. Nothing about it adds up, which is
 * the point: the waterfall must still sum exactly.
 */
function randomInput(seed: number): DriftInput {
  const random = createRandom(seed);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)]!;
  const hours = 24 * 6 + Math.floor(random() * 48);
  const candles: RecordedCandle[] = [];
  const equityCurve: Array<{ time: number; equity: number }> = [];
  const downtimeCandles: Array<{ symbol: string; time: number }> = [];
  let price = 100 + random() * 900;
  let liveEquity = 5_000 + random() * 5_000;
  let replayEquity = liveEquity;
  for (let h = 0; h < hours; h++) {
    const time = T0 + h * HOUR;
    price *= 1 + (random() - 0.5) * 0.02;
    replayEquity *= 1 + (random() - 0.5) * 0.01;
    liveEquity *= 1 + (random() - 0.5) * 0.01;
    equityCurve.push({ time, equity: replayEquity });
    for (const symbol of SYMBOLS) {
      if (random() < 0.05) {
        downtimeCandles.push({ symbol, time });
        continue;
      }
      const close = symbol === SYMBOLS[0] ? price : price / 20;
      candles.push({
        deploymentId: DEP,
        symbol,
        time,
        open: close,
        high: close * 1.01,
        low: close * 0.99,
        close,
        volume: 1,
        equity: liveEquity,
        recordedAt: new Date(time + HOUR).toISOString(),
      });
    }
  }
  const orders: ReplayOrder[] = [];
  const fills: LiveFill[] = [];
  const intents: DriftInput['live']['intents'] = [];
  for (let k = 0; k < 40; k++) {
    const candle = Math.floor(random() * (hours - 2));
    const symbol = pick(SYMBOLS);
    const side = pick(['buy', 'sell'] as const);
    const quantity = 0.1 + random() * 2;
    const fillPrice = price * (0.8 + random() * 0.4);
    const filled = random() < 0.8;
    const id = `o${k + 1}`;
    orders.push({
      id,
      candleTime: T0 + candle * HOUR,
      source: pick(['candle', 'order'] as const),
      symbol,
      side,
      type: pick(['market', 'limit', 'stop', 'stop_loss']),
      quantity,
      size: null,
      price: null,
      reduceOnly: false,
      closeAll: false,
      tag: null,
      status: filled ? 'filled' : 'cancelled',
      fillTime: filled ? T0 + (candle + 1) * HOUR : null,
      fillPrice: filled ? fillPrice : null,
      fillQuantity: filled ? quantity : 0,
      fee: filled ? fillPrice * quantity * 0.0006 : 0,
    });
    if (random() < 0.85) {
      const o = orders[orders.length - 1]!;
      intents.push({
        id: `int_${k}`,
        deploymentId: DEP,
        candleTime: o.candleTime,
        source: o.source,
        kind: 'place',
        symbol,
        side,
        type: 'market',
        quantity,
        size: null,
        price: null,
        reduceOnly: false,
        closeAll: false,
        tag: null,
        guestId: `g${k}`,
        recordedAt: new Date(o.candleTime + HOUR).toISOString(),
      });
      if (filled && random() < 0.8) {
        fills.push({
          orderId: `ord_${k}`,
          guestId: random() < 0.7 ? `g${k}` : null,
          symbol,
          side,
          quantity: quantity * (0.9 + random() * 0.2),
          price: fillPrice * (1 + (random() - 0.4) * 0.002),
          fee: fillPrice * quantity * 0.0007,
          time: o.fillTime! + Math.floor(random() * 3 * HOUR),
        });
      }
    }
  }
  for (let k = 0; k < 5; k++) {
    const symbol = pick(SYMBOLS);
    fills.push({
      orderId: `ord_x${k}`,
      guestId: null,
      symbol,
      side: pick(['buy', 'sell'] as const),
      quantity: random(),
      price: price * (0.9 + random() * 0.2),
      fee: random(),
      time: T0 + Math.floor(random() * hours) * HOUR,
    });
  }
  return {
    deploymentId: DEP,
    strategyVersion: 3,
    symbols: SYMBOLS,
    stepMs: HOUR,
    window: { from: T0, to: T0 + hours * HOUR },
    computedAt: new Date(T0 + hours * HOUR).toISOString(),
    live: {
      candles: candles.sort(() => random() - 0.5),
      intents,
      fills,
      runs: [
        { deploymentId: DEP, startedAt: new Date(T0 - 1).toISOString(), startEquity: random() < 0.5 ? null : 5_000 + random() * 5_000, resumed: false },
        { deploymentId: DEP, startedAt: new Date(T0 + 50 * HOUR).toISOString(), startEquity: null, resumed: true },
      ],
      funding: random() < 0.3 ? null : random() * 10 - 5,
    },
    replay: {
      downtimeCandles,
      orders,
      equityCurve,
      initialCapital: equityCurve[0]!.equity * (0.99 + random() * 0.02),
      finalEquity: replayEquity,
      fees: 0,
      funding: random() * 10 - 5,
      cpuMs: 1_000,
    },
    model: { slippage: 0.0005, fees: { maker: 0.0002, taker: 0.0006 } },
    thresholds: DEFAULT_DRIFT_THRESHOLDS,
  };
}

describe('the drift waterfall', () => {
  it('sums to livePnl − replayPnl within 1e-9 on random inputs (seeds 1..50)', () => {
    for (let seed = 1; seed <= 50; seed++) {
      const report = DriftReport.parse(computeDrift(randomInput(seed)));
      const w = report.waterfall;
      const parts = w.missedTrades + w.extraTrades + w.slippage + w.fees + w.funding + w.downtime + w.remainder;
      expect(Math.abs(parts - (w.livePnl - w.replayPnl)), `seed ${seed}`).toBeLessThanOrEqual(1e-9);
      // Every fill is accounted for once: matched pairs use one of each side.
      const t = report.trades;
      const input = randomInput(seed);
      expect(t.matched + t.extra).toBe(input.live.fills.length);
      expect(t.matched + t.missed).toBe(input.replay.orders.filter((o) => o.status === 'filled').length);
      expect(report.equity.points.length).toBeLessThanOrEqual(500);
    }
  });

  it('gives the same report for the same input', () => {
    expect(computeDrift(randomInput(7))).toEqual(computeDrift(randomInput(7)));
  });
});

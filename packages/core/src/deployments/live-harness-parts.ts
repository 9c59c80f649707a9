import { TIMEFRAME_MS, type CandleSeries, type MarketData } from '../ports/market-data.js';
import type { Clock } from '../ports/clock.js';
import { FAKE_BINANCE_MARK } from '../testing/fake-binance-usdm.js';
import { createStratbox, type Stratbox, type StratboxConfig } from '../create-stratbox.js';
import { createMemoryStore } from '../testing/memory-store.js';
import { createSilentLogger } from '../ports/logger.js';

/*
 * What the live-trading tests and their harnesses (live-faults-harness.ts, live-spot-harness.ts)
 * share: a clock the test moves by hand, a clock that runs faster than real time, and flat
 * candles at the Binance doubles' price.
 */

const MINUTE = TIMEFRAME_MS['1m'];

export interface ManualClock extends Clock {
  advance(ms: number): void;
  /** Moves to just after the close of the next 1m candle. */
  nextCandle(): void;
}

/** A clock at `start` (default: just after the current minute's open) that moves only when told. */
export function manualClock(start = Math.floor(Date.now() / MINUTE) * MINUTE + 1000): ManualClock {
  let t = start;
  return {
    now: () => new Date(t),
    advance(ms) {
      t += ms;
    },
    nextCandle() {
      t = (Math.floor(t / MINUTE) + 1) * MINUTE + 1000;
    },
  };
}

/** A clock `factor` times faster than real time from now on, never going back. */
export function fastClock(factor: number): Clock {
  const start = Date.now();
  let last = 0;
  return {
    now() {
      last = Math.max(last, start + (Date.now() - start) * factor);
      return new Date(last);
    },
  };
}

/** Flat candles at the doubles' price (FAKE_BINANCE_MARK), for any range. */
export function flatMarketData(): MarketData {
  return {
    async getCandles(request) {
      const step = TIMEFRAME_MS[request.timeframe];
      const from = Date.parse(`${request.startDate}T00:00:00Z`);
      const to = Date.parse(`${request.endDate}T00:00:00Z`) + 86_400_000;
      const n = Math.max(0, Math.floor((to - from) / step));
      const series: CandleSeries = {
        symbol: request.symbol,
        timeframe: request.timeframe,
        length: n,
        time: new Float64Array(n),
        open: new Float64Array(n).fill(FAKE_BINANCE_MARK),
        high: new Float64Array(n).fill(FAKE_BINANCE_MARK),
        low: new Float64Array(n).fill(FAKE_BINANCE_MARK),
        close: new Float64Array(n).fill(FAKE_BINANCE_MARK),
        volume: new Float64Array(n).fill(1),
      };
      for (let i = 0; i < n; i++) series.time[i] = from + i * step;
      return { source: 'flat', series };
    },
  };
}

/**
 * A started Stratbox on the memory store whose paper deployments run on a clock 400 times faster
 * than real time (a '1m' candle every 150 ms), polling every 40 ms and running no backtests;
 * `config` adds to it (e.g. a plan with more live bots).
 */
export async function startFastPaperStratbox(config: Partial<StratboxConfig> = {}): Promise<Stratbox> {
  const stratbox = createStratbox({
    store: createMemoryStore(),
    logger: createSilentLogger(),
    clock: fastClock(400),
    workerConcurrency: 0,
    deployments: { pollIntervalMs: 40 },
    ...config,
  });
  await stratbox.start();
  return stratbox;
}

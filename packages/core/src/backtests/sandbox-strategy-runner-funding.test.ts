import { afterAll, describe, expect, it } from 'vitest';
import { createMemoryStore } from '../testing/memory-store.js';
import { createMarketData } from '../market-data/composite-market-data.js';
import { createSandboxPool } from '../index.js';
import { createSandboxStrategyRunner } from './sandbox-strategy-runner.js';
import { loadBacktestCandles } from './load-backtest-candles.js';
import { loadBacktestFunding } from './load-backtest-funding.js';
import type { BacktestRunInput } from '../ports/strategy-runner.js';

/*
 * Funding rates from the market data reach the sandboxed engine: loaded for a backtest's symbols
 * and range, handed to the strategy runner, and checked by the job the child receives (which refuses
 * funding on SPOT and malformed series: proof the series got there).
 */

const pool = createSandboxPool({ size: 1, cpuTimeMs: 10_000 });
const runner = createSandboxStrategyRunner(pool);
afterAll(() => runner.close());

const HOLD = `export const meta = { timeframe: '1h' };
export function onCandle(ctx, c) { if (!ctx.position(c.symbol)) ctx.buy(c.symbol, { size: 0.5 }); }`;
const SYMBOLS = ['BTC/USDT:USDT', 'ETH/USDT:USDT'];
const RANGE = { startDate: '2025-01-01', endDate: '2025-01-03' };

async function input(marketType: 'LINEAR' | 'SPOT'): Promise<BacktestRunInput> {
  const marketData = createMarketData({ store: createMemoryStore() });
  const candles = await loadBacktestCandles(marketData, { symbols: SYMBOLS, timeframe: '1h', ...RANGE, warmup: 0 });
  const funding = await loadBacktestFunding(marketData, { symbols: SYMBOLS, ...RANGE });
  expect(funding.source).toBe('synthetic');
  expect(funding.missing).toEqual([]);
  expect(Object.keys(funding.funding)).toEqual(SYMBOLS);
  for (const symbol of SYMBOLS) expect(funding.funding[symbol]!.time.length).toBe(9);
  return {
    source: HOLD,
    series: candles.series,
    startTime: candles.startTime,
    fees: { maker: 0, taker: 0 },
    leverage: 1,
    slippage: 0,
    initialCapital: 10_000,
    params: {},
    marketType,
    seed: 1,
    funding: funding.funding,
  };
}

const run = (job: BacktestRunInput) => runner.run(job, { signal: new AbortController().signal, onProgress: () => {} });

describe('funding rates through the sandbox strategy runner', () => {
  it('runs a LINEAR backtest that pays the funding rates of each symbol, and none without them', { timeout: 60_000 }, async () => {
    const job = await input('LINEAR');
    const paid = (await run(job)).metrics as { fundingPaid: number; perSymbol: Record<string, { fundingPaid: number }> };
    expect(paid.fundingPaid).not.toBe(0);
    for (const symbol of SYMBOLS) expect(paid.perSymbol[symbol]!.fundingPaid).not.toBe(0);
    const { funding: _funding, ...withoutFunding } = job;
    expect(((await run(withoutFunding)).metrics as { fundingPaid: number }).fundingPaid).toBe(0);
  });

  it('carries them to the engine, which refuses them for SPOT and refuses a malformed series', { timeout: 60_000 }, async () => {
    await expect(run({ ...(await input('LINEAR')), marketType: 'SPOT' })).rejects.toMatchObject({
      code: 'INVALID_JOB',
      message: expect.stringContaining('SPOT backtests have no funding'),
    });
    const linear = await input('LINEAR');
    const btc = linear.funding!['BTC/USDT:USDT']!;
    const backwards = { time: btc.time.slice().reverse(), rate: btc.rate.slice() };
    await expect(run({ ...linear, funding: { ...linear.funding, 'BTC/USDT:USDT': backwards } })).rejects.toMatchObject({
      code: 'INVALID_JOB',
      message: expect.stringContaining('funding["BTC/USDT:USDT"][1]: funding times must be strictly ascending'),
    });
  });

  it('leaves out a symbol the market data has no funding for, and says so', async () => {
    const md = createMarketData({ store: createMemoryStore() });
    const partial = {
      getCandles: md.getCandles,
      getFundingRates: async (request: { symbol: string; startDate: string; endDate: string }) => {
        if (request.symbol === 'ETH/USDT:USDT') return md.getFundingRates!({ ...request, startDate: '2999-01-01', endDate: '2999-01-01' });
        return md.getFundingRates!(request);
      },
    };
    const funding = await loadBacktestFunding(partial, { symbols: SYMBOLS, ...RANGE });
    expect(Object.keys(funding.funding)).toEqual(['BTC/USDT:USDT']);
    expect(funding).toMatchObject({ source: 'synthetic', missing: ['ETH/USDT:USDT'] });
    expect(await loadBacktestFunding({ getCandles: md.getCandles }, { symbols: SYMBOLS, ...RANGE })).toEqual({ funding: {}, source: null, missing: SYMBOLS });
  });
});

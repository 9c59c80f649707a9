import { afterAll, describe, expect, it } from 'vitest';
import { createSandboxPool } from './backtest-pool.js';
import { candlesOf, MINUTE, T0 } from './test-fixtures.js';

/*
 * Funding and trailing stops through the whole engine: the bundled guest runtime in a sandbox
 * child, the host's marks and metrics, the contract-shaped result. The same hand-computed
 * fixtures run in the host in engine/guest/backtest-run.test.ts.
 */
const SYM = 'BTC/USDT:USDT';

describe('funding and trailing stops in a sandboxed backtest', () => {
  const pool = createSandboxPool({ size: 1 });
  afterAll(() => pool.close());

  it('charges funding across a reversal: in the trades, the metrics and the equity curve', async () => {
    const source = `export function onCandle(ctx, c) {
      const i = (c.time - ${T0}) / 60000;
      if (i === 0) ctx.buy(c.symbol, { quantity: 1 });
      if (i === 2) ctx.sell(c.symbol, { quantity: 2 });
      if (i === 4) ctx.close(c.symbol);
    }`;
    const rows: [number, number, number, number][] = [
      [100, 100, 100, 100],
      [100, 100, 100, 100],
      [110, 110, 110, 110], // funding 0.001 at 110: the long pays 0.11
      [120, 120, 120, 120], // the long closes (+20 - 0.11), a short of 1 opens at 120
      [115, 115, 115, 115], // funding 0.002 at 115: the short receives 0.23
      [100, 100, 100, 100], // the short closes (+20 + 0.23)
    ];
    const result = await pool.runBacktest({
      source,
      candles: { [SYM]: candlesOf(rows) },
      fees: { maker: 0, taker: 0 },
      funding: { [SYM]: { time: [T0 + 2 * MINUTE, T0 + 4 * MINUTE], rate: [0.001, 0.002] } },
    });
    expect(result.trades.map((t) => [t.side, t.entryPrice, t.exitPrice])).toEqual([
      ['long', 100, 120],
      ['short', 120, 100],
    ]);
    expect(result.trades[0]!.funding).toBeCloseTo(0.11, 12);
    expect(result.trades[0]!.pnl).toBeCloseTo(19.89, 12);
    expect(result.trades[1]!.funding).toBeCloseTo(-0.23, 12);
    expect(result.trades[1]!.pnl).toBeCloseTo(20.23, 12);
    expect(result.metrics.fundingPaid).toBeCloseTo(0.11 - 0.23, 12);
    // Equity at each close: 10,000; 10,000; 10,000 + (110 - 100) - 0.11; 10,019.89; + (120 - 115) + 0.23; 10,040.12
    const equity = Array.from(result.series.equity);
    expect(equity[2]).toBeCloseTo(10_009.89, 9);
    expect(equity[3]).toBeCloseTo(10_019.89, 9);
    expect(equity[4]).toBeCloseTo(10_025.12, 9);
    expect(equity[5]).toBeCloseTo(10_040.12, 9);
  });

  it('ratchets a trailing stop from the best price and exits on a gap at the open', async () => {
    const source = `export function onCandle(ctx, c) {
      if (c.time === ${T0}) ctx.buy(c.symbol, { quantity: 1, trailingStop: { distance: 5 } });
    }
    export function onOrder(ctx, e) { if (e.type === 'trailingStop') ctx.log('trailing stop at', e.price); }`;
    const result = await pool.runBacktest({
      source,
      candles: {
        [SYM]: candlesOf([
          [100, 100, 100, 100],
          [100, 103, 99, 102], // fills at 100: stop 95
          [102, 110, 104, 108], // the stop is 95 during this candle, 105 after it
          [101, 102, 100, 101], // opens below 105: exits at 101
          [101, 101, 101, 101],
        ]),
      },
      fees: { maker: 0, taker: 0 },
    });
    expect(result.trades).toHaveLength(1);
    expect(result.trades[0]).toMatchObject({ side: 'long', entryPrice: 100, exitPrice: 101, pnl: 1, exitReason: 'trailingStop', funding: 0 });
    expect(result.logs.map((l) => l.message)).toEqual(['trailing stop at 101']);
  });

  it('refuses funding rates on SPOT', async () => {
    await expect(
      pool.runBacktest({
        source: 'export function onCandle() {}',
        candles: { 'BTC/USDT': candlesOf([[100, 100, 100, 100]]) },
        marketType: 'SPOT',
        funding: { 'BTC/USDT': { time: [T0], rate: [0.001] } },
      }),
    ).rejects.toMatchObject({ code: 'INVALID_JOB', message: 'SPOT backtests have no funding' });
  });
});

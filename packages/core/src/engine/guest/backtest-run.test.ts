import { describe, expect, it } from 'vitest';
import type { BacktestRunConfig, StrategyModule } from './backtest-run.js';
import { bars, MIN, type Row, runBacktest } from './testing/backtest-harness.js';

/*
 * The backtest runtime's modules run here, in the host, exactly as they run inside QuickJS (the
 * bundle is these files): hand-computed fixtures for funding and trailing stops. The same cases
 * run through the sandbox in backtests/engine/funding-trailing.test.ts.
 */
/** Runs `strategy` over `rows` (candle i at minute i) through the test harness; trades with times in minutes, and the final cash. */
function backtest(rows: Row[], strategy: StrategyModule, config: Partial<BacktestRunConfig> = {}) {
  const { trades, final } = runBacktest(bars(rows), strategy, { config, random: () => 0.5 });
  return {
    trades: trades.map(({ s: _s, entryTime, exitTime, ...t }) => ({ ...t, entryTime: entryTime / MIN, exitTime: exitTime / MIN })),
    cash: final[0]!,
  };
}

/** A strategy that calls `steps[i]` with ctx at the close of candle i. */
function scripted(steps: Record<number, (ctx: any) => void>): StrategyModule {
  let i = 0;
  return {
    onCandle(ctx: any) {
      steps[i]?.(ctx);
      i++;
    },
  };
}

const SYM = 'BTC/USDT:USDT';

describe('trailing stops', () => {
  it('ratchet from the best price after each candle, then trigger on a gap at the open', () => {
    const rows: Row[] = [
      [100, 100, 100, 100], // 0: buy 1 with a trailing stop 5 below the best price
      [100, 103, 99, 102], // 1: fills at the open, 100; the stop is 95; the entry candle does not move it
      [102, 110, 104, 108], // 2: the stop is still 95 here (a low of 104 would hit 105); after the candle it is 110 - 5 = 105
      [101, 102, 100, 101], // 3: opens at 101, below 105: exits at the open
      [101, 101, 101, 101],
    ];
    const { trades, cash } = backtest(rows, scripted({ 0: (ctx) => ctx.buy(SYM, { quantity: 1, trailingStop: { distance: 5 } }) }));
    expect(trades).toEqual([
      { dir: 1, entryTime: 1, entryPrice: 100, exitTime: 3, exitPrice: 101, quantity: 1, pnl: 1, fees: 0, reason: 'trailingStop', funding: 0 },
    ]);
    expect(cash).toBe(10_001);
  });

  it('as a fraction on a short, set by ctx.setTrailingStop from the last close, triggers at the level inside a candle', () => {
    const seen: unknown[] = [];
    const rows: Row[] = [
      [100, 100, 100, 100], // 0: sell 2
      [100, 100, 100, 100], // 1: fills at 100; at the close: trailing stop 10% above the last close, 100 -> 110
      [98, 99, 90, 92], // 2: best 90 after it: stop 99
      [95, 100, 94, 96], // 3: the high 100 crosses 99: exits at 99 (the open 95 is below it)
      [96, 96, 96, 96],
    ];
    const { trades } = backtest(
      rows,
      scripted({
        0: (ctx) => ctx.sell(SYM, { quantity: 2 }),
        1: (ctx) => seen.push(ctx.setTrailingStop(SYM, { fraction: 0.1 }), ctx.position(SYM).trailingStop),
        2: (ctx) => seen.push(ctx.position(SYM).trailingStop),
      }),
    );
    expect(seen[0]).toBe(true);
    expect(seen[1]).toBeCloseTo(110, 9);
    expect(seen[2]).toBeCloseTo(99, 9);
    expect(trades).toHaveLength(1);
    expect(trades[0]).toMatchObject({ dir: -1, entryPrice: 100, exitTime: 3, quantity: 2, reason: 'trailingStop' });
    expect(trades[0]!.exitPrice).toBeCloseTo(99, 9);
    expect(trades[0]!.pnl).toBeCloseTo(2, 9);
  });

  it('refuses a bad trailing stop with a TypeError the strategy can read', () => {
    const errors: string[] = [];
    backtest(
      [[100, 100, 100, 100]],
      scripted({
        0: (ctx) => {
          for (const spec of [{ distance: -1 }, { fraction: 1.5 }, { distance: 1, fraction: 0.1 }, 5]) {
            try {
              ctx.buy(SYM, { quantity: 1, trailingStop: spec });
            } catch (e) {
              errors.push((e as Error).message);
            }
          }
        },
      }),
    );
    expect(errors).toEqual([
      'trailingStop.distance must be a positive price distance, got -1',
      'trailingStop.fraction must be a number in (0, 1), got 1.5',
      'trailingStop must be { distance } (a price distance) or { fraction } (of the best price), got {"distance":1,"fraction":0.1}',
      'trailingStop must be { distance } (a price distance) or { fraction } (of the best price), got 5',
    ]);
  });
});

describe('funding', () => {
  it('is paid by a long and received by the short it reverses into, at the open of the first candle at or after each funding time', () => {
    const rows: Row[] = [
      [100, 100, 100, 100], // 0: buy 1
      [100, 100, 100, 100], // 1: long 1 at 100
      [110, 110, 110, 110], // 2: funding 0.001 at the open 110: the long pays 0.11; sell 2
      [120, 120, 120, 120], // 3: the long closes at 120 (+20 - 0.11 = 19.89), a short of 1 opens at 120
      [115, 115, 115, 115], // 4: funding 0.002 at 115: the short receives 0.23; close
      [100, 100, 100, 100], // 5: the short closes at 100 (+20 + 0.23 = 20.23)
    ];
    const { trades, cash } = backtest(
      rows,
      scripted({ 0: (ctx) => ctx.buy(SYM, { quantity: 1 }), 2: (ctx) => ctx.sell(SYM, { quantity: 2 }), 4: (ctx) => ctx.close(SYM) }),
      { funding: [{ time: [2 * MIN - 1, 4 * MIN], rate: [0.001, 0.002] }] },
    );
    expect(trades.map((t) => [t.dir, t.entryPrice, t.exitPrice, t.quantity])).toEqual([
      [1, 100, 120, 1],
      [-1, 120, 100, 1],
    ]);
    expect(trades[0]!.funding).toBeCloseTo(0.11, 12);
    expect(trades[0]!.pnl).toBeCloseTo(19.89, 12);
    expect(trades[1]!.funding).toBeCloseTo(-0.23, 12);
    expect(trades[1]!.pnl).toBeCloseTo(20.23, 12);
    expect(cash).toBeCloseTo(10_040.12, 9);
  });

  it('paid on a position that is then liquidated is part of the trade that loses the margin', () => {
    const rows: Row[] = [
      [100, 100, 100, 100], // 0: buy 1 at 10x
      [100, 100, 100, 100], // 1: fills at 100, taker fee 0.1, margin 10, liquidation at 100 x (1 - 0.1 + 0.005) = 90.5
      [100, 100, 99, 99], // 2: funding 0.002 at 100: pays 0.2
      [95, 95, 90, 91], // 3: the low 90 crosses 90.5: liquidated, -9.5 and the 0.5 left of the margin
      [91, 91, 91, 91],
    ];
    const { trades, cash } = backtest(rows, scripted({ 0: (ctx) => ctx.buy(SYM, { quantity: 1 }) }), {
      leverage: 10,
      taker: 0.001,
      funding: [{ time: [2 * MIN], rate: [0.002] }],
    });
    expect(trades).toHaveLength(1);
    expect(trades[0]).toMatchObject({ dir: 1, entryPrice: 100, exitTime: 3, quantity: 1, reason: 'liquidation' });
    expect(trades[0]!.exitPrice).toBeCloseTo(90.5, 9);
    expect(trades[0]!.funding).toBeCloseTo(0.2, 12);
    expect(trades[0]!.fees).toBeCloseTo(0.6, 9);
    expect(trades[0]!.pnl).toBeCloseTo(-10.3, 9);
    expect(cash).toBeCloseTo(9_989.7, 9);
  });

  it('is not paid while flat', () => {
    const { cash } = backtest(
      [
        [100, 100, 100, 100],
        [100, 100, 100, 100],
      ],
      scripted({}),
      { funding: [{ time: [0, MIN], rate: [0.01, 0.01] }] },
    );
    expect(cash).toBe(10_000);
  });
});

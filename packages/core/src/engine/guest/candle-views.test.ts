import { describe, expect, it } from 'vitest';
import { type Bar, BTC, bars, ETH, MIN, type Row, runBacktest, scripted } from './testing/backtest-harness.js';

/*
 * The candle objects onCandle gets: the loop fills a field only once the strategy touched it
 * (candle-views.ts), which nothing the strategy reads may reveal. Each candle here has distinct
 * numbers, so a value read names the candle it came from.
 */

/** Candle i of a symbol based at `p`: open p + i, high + 0.5, low - 0.5, close + 0.25, volume 1000 p + i. */
function distinct(p: number, n: number, s: number): Bar[] {
  const rows: Row[] = [];
  for (let i = 0; i < n; i++) rows.push([p + i, p + i + 0.5, p + i - 0.5, p + i + 0.25]);
  return bars(rows, s).map((b, i) => ({ ...b, volume: 1000 * p + i }));
}

const fields = (c: any) => [c.symbol, c.time / MIN, c.open, c.high, c.low, c.close, c.volume];

describe('candle objects', () => {
  it('read first late, through an object kept from an earlier call, hold that symbol’s latest candle, across batches', () => {
    const btc = distinct(100, 4, 0);
    const eth = distinct(10, 4, 1);
    const merged: Bar[] = [];
    for (let i = 0; i < 4; i++) merged.push(btc[i]!, eth[i]!);
    const kept: Record<string, any> = {};
    const seen: unknown[] = [];
    let call = 0;
    const strategy = {
      onCandle(_ctx: unknown, c: any) {
        kept[c.symbol] = c;
        // Candle 6 (BTC at minute 3) opens the third batch of 3: ETH's latest is minute 2, from the batch before.
        if (call === 6) seen.push(fields(kept[ETH]), fields(c));
        if (call === 7) seen.push(fields(c), fields(kept[BTC]));
        call++;
      },
    };
    runBacktest(merged, strategy, { batches: [3] });
    expect(seen).toEqual([
      [ETH, 2, 12, 12.5, 11.5, 12.25, 10_002],
      [BTC, 3, 103, 103.5, 102.5, 103.25, 100_003],
      [ETH, 3, 13, 13.5, 12.5, 13.25, 10_003],
      [BTC, 3, 103, 103.5, 102.5, 103.25, 100_003],
    ]);
  });

  it('read first in onOrder at a fill, hold the candle before the one filling, then the next one in onCandle', () => {
    const seen: unknown[] = [];
    let kept: any = null;
    runBacktest(
      distinct(100, 3, 0),
      scripted(
        {
          0: (ctx, c) => {
            kept = c;
            ctx.buy(BTC, { quantity: 1 });
          },
          1: (_ctx, c) => seen.push(c.close, c.time / MIN),
        },
        { onOrder: (_ctx, event) => seen.push(event.price, kept.close, kept.time / MIN) },
      ),
    );
    // filled at the open of candle 1 (101), while the kept object still holds candle 0
    expect(seen).toEqual([101, 100.25, 0, 101.25, 1]);
  });

  it('behave as plain objects: their keys in order, spread and JSON; a write stays until the next candle', () => {
    const seen: unknown[] = [];
    runBacktest(
      distinct(100, 2, 0),
      scripted({
        0: (_ctx, c) => {
          seen.push(Object.keys(c), { ...c }, JSON.parse(JSON.stringify(c)));
          c.close = 1;
          seen.push(c.close);
        },
        1: (_ctx, c) => seen.push(c.close),
      }),
    );
    const first = { symbol: BTC, time: 0, open: 100, high: 100.5, low: 99.5, close: 100.25, volume: 100_000 };
    expect(seen).toEqual([['symbol', 'time', 'open', 'high', 'low', 'close', 'volume'], first, first, 1, 101.25]);
  });

  it('a write before any read is kept until the next candle, and a field read after another still holds its candle', () => {
    const seen: unknown[] = [];
    let kept: any = null;
    runBacktest(
      distinct(100, 3, 0),
      scripted({
        0: (_ctx, c) => {
          kept = c;
          c.volume = 7;
          seen.push(c.volume);
        },
        1: (_ctx, c) => seen.push(c.volume, c.close),
        2: () => seen.push(kept.high, kept.low, kept.open),
      }),
    );
    expect(seen).toEqual([7, 100_001, 101.25, 102.5, 101.5, 102]);
  });
});

import { describe, expect, it } from 'vitest';
import { journalOrders } from '../../backtests/engine/journal-orders.js';
import { BTC, bars, flat, MIN, type Row, runBacktest, scripted } from './testing/backtest-harness.js';

/*
 * The order journal inside the backtest runtime (run here in the host, as in QuickJS): outcomes
 * the sandbox test (backtests/sandbox-strategy-runner-journal.test.ts) does not reach, and the cap.
 */

function journalOf(rows: Row[], strategy: Parameters<typeof runBacktest>[1], config: Parameters<typeof runBacktest>[2] = {}) {
  const result = runBacktest(bars(rows), strategy, { ...config, config: { journal: true, ...config.config } });
  return { ...result, orders: journalOrders(result.journal!, [BTC]) };
}

describe('the order journal', () => {
  it('is not kept unless the run asks for it', () => {
    const result = runBacktest(bars([flat(100), flat(100)]), scripted({ 0: (ctx) => ctx.buy(BTC, { quantity: 1 }) }));
    expect(result.journal).toBeNull();
  });

  it('records rejections, cancels of ctx.cancelAll, take-profits and ctx.close, each at its candle', () => {
    const rows: Row[] = [
      flat(100), // 0: a sell while flat on SPOT (rejected), a limit buy at 50, a buy with a take-profit at 110
      [100, 105, 99, 104], // 1: the buy fills at 100; cancelAll cancels the limit
      [104, 115, 103, 112], // 2: the high crosses 110: take-profit; then a new buy
      flat(112), // 3: the buy fills; ctx.close
      flat(113), // 4: the close fills at the open
    ];
    const { orders, trades } = journalOf(
      rows,
      scripted({
        0: (ctx) => {
          ctx.sell(BTC, { quantity: 1 });
          ctx.buy(BTC, { type: 'limit', price: 50, quantity: 1 });
          ctx.buy(BTC, { quantity: 2, takeProfit: 110, tag: 'tp' });
        },
        1: (ctx) => ctx.cancelAll(),
        2: (ctx) => ctx.buy(BTC, { size: 0.5 }),
        3: (ctx) => ctx.close(BTC),
      }),
      { config: { allowShort: false, liquidation: false } },
    );
    const brief = orders.map(({ id, candleTime, source, type, status, fillTime, fillPrice, fillQuantity, closeAll, size, tag }) => ({
      id,
      candleTime: candleTime / MIN,
      source,
      type,
      status,
      fillTime: fillTime === null ? null : fillTime / MIN,
      fillPrice,
      fillQuantity,
      closeAll,
      size,
      tag,
    }));
    const q4 = (0.5 * trades[0]!.pnl + 0.5 * 10_000) / 112;
    expect(brief).toEqual([
      {
        id: 'o1',
        candleTime: 0,
        source: 'candle',
        type: 'market',
        status: 'rejected',
        fillTime: null,
        fillPrice: null,
        fillQuantity: 0,
        closeAll: false,
        size: null,
        tag: null,
      },
      {
        id: 'o2',
        candleTime: 0,
        source: 'candle',
        type: 'limit',
        status: 'cancelled',
        fillTime: null,
        fillPrice: null,
        fillQuantity: 0,
        closeAll: false,
        size: null,
        tag: null,
      },
      {
        id: 'o3',
        candleTime: 0,
        source: 'candle',
        type: 'market',
        status: 'filled',
        fillTime: 1,
        fillPrice: 100,
        fillQuantity: 2,
        closeAll: false,
        size: null,
        tag: 'tp',
      },
      {
        id: 'x1',
        candleTime: 2,
        source: 'order',
        type: 'takeProfit',
        status: 'filled',
        fillTime: 2,
        fillPrice: 110,
        fillQuantity: 2,
        closeAll: true,
        size: null,
        tag: null,
      },
      {
        id: 'o4',
        candleTime: 2,
        source: 'candle',
        type: 'market',
        status: 'filled',
        fillTime: 3,
        fillPrice: 112,
        fillQuantity: q4,
        closeAll: false,
        size: 0.5,
        tag: null,
      },
      {
        id: 'o5',
        candleTime: 3,
        source: 'candle',
        type: 'market',
        status: 'filled',
        fillTime: 4,
        fillPrice: 113,
        fillQuantity: q4,
        closeAll: true,
        size: null,
        tag: null,
      },
    ]);
    expect(trades.map((t) => [t.reason, t.exitPrice])).toEqual([
      ['takeProfit', 110],
      ['market', 113],
    ]);
  });

  it("records a liquidation as the engine's close, with its penalty as the fee", () => {
    const rows: Row[] = [flat(100), flat(100), [100, 100, 80, 85], flat(85)];
    const { orders, trades } = journalOf(rows, scripted({ 0: (ctx) => ctx.buy(BTC, { quantity: 900 }) }), { config: { leverage: 10 } });
    expect(orders.map((o) => [o.id, o.type, o.side, o.status, o.source])).toEqual([
      ['o1', 'market', 'buy', 'filled', 'candle'],
      ['x1', 'liquidation', 'sell', 'filled', 'order'],
    ]);
    expect(trades).toHaveLength(1);
    expect(orders[1]!.fillPrice).toBe(trades[0]!.exitPrice);
    expect(orders[1]!.fillTime).toBe(2 * MIN);
    expect(orders[1]!.fillQuantity).toBe(900);
    expect(orders[1]!.fee).toBeCloseTo(trades[0]!.fees, 9);
  });

  it('keeps the first orders up to its cap, still with their outcomes, and counts the others', () => {
    const { orders, journal } = journalOf(
      [flat(100), flat(100), flat(100)],
      scripted({
        0: (ctx) => {
          ctx.buy(BTC, { quantity: 1 });
          for (let k = 0; k < 5; k++) ctx.buy(BTC, { type: 'limit', price: 50, quantity: 1 });
        },
      }),
      { config: { maxJournalOrders: 3 } },
    );
    expect(orders.map((o) => [o.id, o.status])).toEqual([
      ['o1', 'filled'],
      ['o2', 'open'],
      ['o3', 'open'],
    ]);
    // Three limits left out, and the end-of-run close.
    expect(journal!.dropped).toBe(4);
  });
});

import { describe, expect, it } from 'vitest';
import type { CreateOrderRequest } from '../ports/exchange-gateway.js';
import { newClientOrderId } from './client-order-id.js';
import { createPaperGateway, type PaperGatewayOptions } from './paper-gateway.js';

/*
 * Liquidation on the paper exchange, as the backtest does it (docs/backtest-model.md, "Positions,
 * margin and liquidation"): a LINEAR position whose price reaches entry x (1 - 1/leverage +
 * maintenanceMarginRate) (long) or entry x (1 + 1/leverage - maintenanceMarginRate) (short) is
 * closed at that price, whatever price the read found beyond it, and the whole margin is lost.
 * Hand-computed: 10 units at 100 with leverage 10 lock a margin of 100; the taker fee of 0.002
 * costs 2 at entry; maintenance margin 0.005 x 1,000 = 5.
 */

const BTC = 'BTC/USDT:USDT';
const ETH = 'ETH/USDT:USDT';

function setup(overrides: Partial<PaperGatewayOptions> = {}) {
  const table: Record<string, number> = { [BTC]: 100, [ETH]: 10 };
  const paper = createPaperGateway({
    prices: (symbol) => table[symbol],
    fees: { maker: 0.001, taker: 0.002 },
    initialBalance: 10_000,
    leverage: 10,
    ...overrides,
  });
  const order = (request: Omit<CreateOrderRequest, 'clientOrderId'>) => paper.createOrder({ clientOrderId: newClientOrderId(), ...request });
  return { paper, table, order };
}

describe('paper exchange liquidation', () => {
  it('liquidates a long at its liquidation price (90.5) when a read is below it: the position is gone and its whole margin lost', async () => {
    const { paper, table, order } = setup();
    const entry = await order({ symbol: BTC, side: 'buy', type: 'market', quantity: 10 });
    expect(entry.fee).toBeCloseTo(2, 12);
    const [position] = await paper.fetchPositions([BTC]);
    expect(position!.liquidationPrice).toBeCloseTo(90.5, 9);

    table[BTC] = 91; // above the liquidation price: still open
    expect(await paper.fetchPositions([BTC])).toHaveLength(1);
    expect((await paper.fetchBalance())['USDT']).toMatchObject({ used: 100 });

    table[BTC] = 85; // the stretch from 91 to 85 passed 90.5
    expect(await paper.fetchPositions([BTC])).toEqual([]);
    const usdt = (await paper.fetchBalance())['USDT']!;
    // 10,000 - entry fee 2 - loss 10 x (100 - 90.5) = 95 - what was left of the margin, 5 = 10,000 - 2 - the margin of 100.
    expect(usdt.total).toBeCloseTo(9_898, 9);
    expect(usdt.used).toBe(0);
    expect(usdt.free).toBeCloseTo(9_898, 9);

    // The liquidation is kept as a closed order: a reduce-only market sell at 90.5 whose fee is the rest of the margin.
    const liquidation = await paper.fetchOrder('paper-2', BTC);
    expect(liquidation).toMatchObject({
      symbol: BTC,
      side: 'sell',
      type: 'market',
      status: 'filled',
      quantity: 10,
      filledQuantity: 10,
      reduceOnly: true,
      clientOrderId: null,
    });
    expect(liquidation.averagePrice).toBeCloseTo(90.5, 9);
    expect(liquidation.fee).toBeCloseTo(5, 9);
    expect(await paper.fetchOpenOrders()).toEqual([]);
  });

  it('liquidates a short at its liquidation price (109.5) when a read is above it', async () => {
    const { paper, table, order } = setup();
    await order({ symbol: BTC, side: 'sell', type: 'market', quantity: 10 });
    expect((await paper.fetchPositions([BTC]))[0]!.liquidationPrice).toBeCloseTo(109.5, 9);
    table[BTC] = 109;
    expect(await paper.fetchPositions([BTC])).toHaveLength(1);
    table[BTC] = 130;
    await paper.poll();
    expect(await paper.fetchPositions([BTC])).toEqual([]);
    const usdt = (await paper.fetchBalance())['USDT']!;
    // 10,000 - entry fee 2 - loss 10 x (109.5 - 100) = 95 - the rest of the margin, 5.
    expect(usdt.total).toBeCloseTo(9_898, 9);
    expect(usdt.used).toBe(0);
    const liquidation = await paper.fetchOrder('paper-2', BTC);
    expect(liquidation).toMatchObject({ side: 'buy', status: 'filled', filledQuantity: 10 });
    expect(liquidation.averagePrice).toBeCloseTo(109.5, 9);
  });

  it('liquidates only the position whose price reached it; the others and the wallet they use are untouched', async () => {
    const { paper, table, order } = setup({ fees: { maker: 0, taker: 0 } });
    await order({ symbol: BTC, side: 'buy', type: 'market', quantity: 10 });
    await order({ symbol: ETH, side: 'buy', type: 'market', quantity: 100 });
    table[BTC] = 80;
    table[ETH] = 11;
    const positions = await paper.fetchPositions([BTC, ETH]);
    expect(positions.map((p) => p.symbol)).toEqual([ETH]);
    const usdt = (await paper.fetchBalance())['USDT']!;
    // BTC lost its margin of 100; ETH is up 100 x (11 - 10) = 100 and still locks 100.
    expect(usdt.total).toBeCloseTo(10_000 - 100 + 100, 9);
    expect(usdt.used).toBeCloseTo(100, 9);
  });

  it('follows the maintenance margin rate option, and a later order opens a fresh position', async () => {
    const { paper, table, order } = setup({ maintenanceMarginRate: 0.05, fees: { maker: 0, taker: 0 } });
    await order({ symbol: BTC, side: 'buy', type: 'market', quantity: 10 });
    // 100 x (1 - 0.1 + 0.05) = 95.
    expect((await paper.fetchPositions([BTC]))[0]!.liquidationPrice).toBeCloseTo(95, 9);
    table[BTC] = 95;
    expect(await paper.fetchPositions([BTC])).toEqual([]);
    expect((await paper.fetchBalance())['USDT']!.total).toBeCloseTo(9_900, 9);
    await order({ symbol: BTC, side: 'buy', type: 'market', quantity: 1 });
    expect(await paper.fetchPositions([BTC])).toMatchObject([{ side: 'long', quantity: 1, entryPrice: 95 }]);
  });

  it('liquidates a position a resting order opened, at the same read', async () => {
    const { paper, table, order } = setup({ fees: { maker: 0, taker: 0 } });
    const resting = await order({ symbol: BTC, side: 'buy', type: 'limit', quantity: 10, price: 99 });
    table[BTC] = 80; // the stretch passed 99 (the limit fills there) and then 89.595, its liquidation price
    expect((await paper.fetchOrder(resting.exchangeOrderId, BTC)).status).toBe('filled');
    expect(await paper.fetchPositions([BTC])).toEqual([]);
    expect((await paper.fetchBalance())['USDT']!.total).toBeCloseTo(10_000 - 99, 9);
  });
});

import { describe, expect, it } from 'vitest';
import { rejection } from '../testing/gateway-rejection.js';
import type { CreateOrderRequest } from '../ports/exchange-gateway.js';
import { newClientOrderId } from './client-order-id.js';
import { createMemoryStore } from '../testing/memory-store.js';
import { createPaperGateway, type PaperGateway, type PaperGatewayOptions, type PaperPersistence } from './paper-gateway.js';
import { createStorePaperPersistence } from './paper-persistence.js';

const BTC = 'BTC/USDT:USDT';
const ETH = 'ETH/USDT:USDT';
const fees = { maker: 0.001, taker: 0.002 };

/** A paper exchange over a price table the test moves by hand. */
function setup(overrides: Partial<PaperGatewayOptions> = {}) {
  const table: Record<string, number> = { [BTC]: 100, [ETH]: 10 };
  const paper = createPaperGateway({ prices: (symbol) => table[symbol], fees, initialBalance: 10_000, ...overrides });
  const order = (request: Omit<CreateOrderRequest, 'clientOrderId'> & { clientOrderId?: string }) =>
    paper.createOrder({ clientOrderId: newClientOrderId(), ...request });
  return { paper, table, order };
}

describe('createPaperGateway (LINEAR)', () => {
  it('fills a market buy at the price read, moved by slippage, with the taker fee', async () => {
    const { paper, order } = setup({ slippage: 0.01 });
    const filled = await order({ symbol: BTC, side: 'buy', type: 'market', quantity: 2 });
    expect(filled).toMatchObject({ status: 'filled', filledQuantity: 2, averagePrice: 101, type: 'market', price: null, feeCurrency: 'USDT' });
    expect(filled.fee).toBeCloseTo(2 * 101 * 0.002, 12);
    expect(await paper.fetchPositions([BTC])).toEqual([
      // Liquidation at entry x (1 - 1/leverage + maintenance margin rate 0.005).
      { symbol: BTC, side: 'long', quantity: 2, entryPrice: 101, markPrice: 100, unrealizedPnl: -2, leverage: 1, liquidationPrice: 101 * 0.005 },
    ]);
    const balance = (await paper.fetchBalance())['USDT']!;
    expect(balance.used).toBeCloseTo(202, 9);
    expect(balance.total).toBeCloseTo(10_000 - 0.404 - 2, 9);
    expect(balance.free).toBeCloseTo(balance.total - 202, 9);
  });

  it('fills a market sell below the price by slippage and opens a short', async () => {
    const { paper, order } = setup({ slippage: 0.01 });
    const filled = await order({ symbol: BTC, side: 'sell', type: 'market', quantity: 1 });
    expect(filled.averagePrice).toBe(99);
    expect((await paper.fetchPositions([BTC]))[0]).toMatchObject({ side: 'short', quantity: 1, entryPrice: 99, unrealizedPnl: -1 });
  });

  it('rests a limit buy until the price trades through it, then fills at the limit with the maker fee', async () => {
    const { paper, table, order } = setup();
    const placed = await order({ symbol: BTC, side: 'buy', type: 'limit', quantity: 1, price: 95 });
    expect(placed).toMatchObject({ status: 'open', price: 95, filledQuantity: 0 });
    table[BTC] = 97;
    await paper.poll();
    expect((await paper.fetchOpenOrders(BTC)).map((o) => o.exchangeOrderId)).toEqual([placed.exchangeOrderId]);
    table[BTC] = 95; // touching the limit is not trading through it
    expect((await paper.fetchOrder(placed.exchangeOrderId, BTC)).status).toBe('open');
    table[BTC] = 93;
    const filled = await paper.fetchOrder(placed.exchangeOrderId, BTC);
    expect(filled).toMatchObject({ status: 'filled', filledQuantity: 1, averagePrice: 95 });
    expect(filled.fee).toBeCloseTo(95 * 0.001, 12);
    expect(await paper.fetchOpenOrders()).toEqual([]);
  });

  it('fills a limit buy placed above the price at once, at the price read (better than the limit)', async () => {
    const { order } = setup();
    const filled = await order({ symbol: BTC, side: 'buy', type: 'limit', quantity: 1, price: 105 });
    expect(filled).toMatchObject({ status: 'filled', averagePrice: 100 });
    expect(filled.fee).toBeCloseTo(100 * 0.001, 12);
  });

  it('fills a limit sell when the price rises through it', async () => {
    const { paper, table, order } = setup();
    const placed = await order({ symbol: BTC, side: 'sell', type: 'limit', quantity: 1, price: 110 });
    table[BTC] = 112;
    expect(await paper.fetchOrderByClientId(placed.clientOrderId!, BTC)).toMatchObject({ status: 'filled', averagePrice: 110 });
  });

  it('triggers a resting stop sell at the stop minus slippage, with the taker fee', async () => {
    const { paper, table, order } = setup({ slippage: 0.01 });
    await order({ symbol: BTC, side: 'buy', type: 'market', quantity: 1 });
    const stop = await order({ symbol: BTC, side: 'sell', type: 'stop', quantity: 1, stopPrice: 90, reduceOnly: true });
    expect(stop).toMatchObject({ status: 'open', stopPrice: 90, reduceOnly: true, price: null });
    table[BTC] = 91;
    expect((await paper.fetchOrder(stop.exchangeOrderId, BTC)).status).toBe('open');
    table[BTC] = 85; // gapped below the stop between two reads: the candle passed through 90
    const filled = await paper.fetchOrder(stop.exchangeOrderId, BTC);
    expect(filled.status).toBe('filled');
    expect(filled.averagePrice).toBeCloseTo(90 * 0.99, 12);
    expect(filled.fee).toBeCloseTo(90 * 0.99 * 0.002, 12);
    expect(await paper.fetchPositions([BTC])).toEqual([]);
  });

  it('triggers a stop buy placed beyond its stop at once, at the worse of price and stop plus slippage', async () => {
    const { order } = setup({ slippage: 0.01 });
    const filled = await order({ symbol: BTC, side: 'buy', type: 'stop', quantity: 1, stopPrice: 98 });
    expect(filled.status).toBe('filled');
    expect(filled.averagePrice).toBeCloseTo(101, 12);
  });

  it('realizes profit and fees into the wallet when a position is closed', async () => {
    const { paper, table, order } = setup();
    await order({ symbol: BTC, side: 'buy', type: 'market', quantity: 10 });
    table[BTC] = 120;
    await order({ symbol: BTC, side: 'sell', type: 'market', quantity: 10, reduceOnly: true });
    const usdt = (await paper.fetchBalance())['USDT']!;
    // +200 profit, fees 10 x 100 x 0.002 and 10 x 120 x 0.002.
    expect(usdt.total).toBeCloseTo(10_000 + 200 - 2 - 2.4, 9);
    expect(usdt.used).toBe(0);
    expect(usdt.free).toBeCloseTo(usdt.total, 9);
  });

  it('cuts a reduce-only order to the position, and cancels one with nothing to reduce', async () => {
    const { paper, order } = setup();
    await order({ symbol: BTC, side: 'buy', type: 'market', quantity: 3 });
    const cut = await order({ symbol: BTC, side: 'sell', type: 'market', quantity: 5, reduceOnly: true });
    expect(cut).toMatchObject({ status: 'filled', filledQuantity: 3 });
    expect(await paper.fetchPositions([BTC])).toEqual([]);
    const nothing = await order({ symbol: BTC, side: 'sell', type: 'market', quantity: 1, reduceOnly: true });
    expect(nothing).toMatchObject({ status: 'cancelled', filledQuantity: 0 });
    await order({ symbol: BTC, side: 'sell', type: 'market', quantity: 1 });
    const sameSide = await order({ symbol: BTC, side: 'sell', type: 'market', quantity: 1, reduceOnly: true });
    expect(sameSide.status).toBe('cancelled');
  });

  it('flips a position when a fill is larger than it', async () => {
    const { paper, table, order } = setup({ fees: { maker: 0, taker: 0 } });
    await order({ symbol: BTC, side: 'buy', type: 'market', quantity: 2 });
    table[BTC] = 110;
    await order({ symbol: BTC, side: 'sell', type: 'market', quantity: 5 });
    expect(await paper.fetchPositions([BTC])).toEqual([
      // Liquidation at entry x (1 + 1/leverage - 0.005).
      { symbol: BTC, side: 'short', quantity: 3, entryPrice: 110, markPrice: 110, unrealizedPnl: 0, leverage: 1, liquidationPrice: 110 * (2 - 0.005) },
    ]);
    expect((await paper.fetchBalance())['USDT']).toEqual({ total: 10_020, used: 330, free: 9_690 });
  });

  it('refuses an order the account cannot pay for (insufficient funds), with leverage counted', async () => {
    const { order } = setup();
    const error = await rejection(order({ symbol: BTC, side: 'buy', type: 'market', quantity: 101 }));
    expect(error.reason).toBe('insufficient_funds');
    expect(error.code).toBe('CONFLICT');
    const leveraged = setup({ leverage: 10 });
    expect((await leveraged.order({ symbol: BTC, side: 'buy', type: 'market', quantity: 500 })).status).toBe('filled');
  });

  it('rejects a resting order whose money is gone when it triggers', async () => {
    const { paper, table, order } = setup({ fees: { maker: 0, taker: 0 } });
    const resting = await order({ symbol: BTC, side: 'buy', type: 'limit', quantity: 60, price: 90 });
    await order({ symbol: ETH, side: 'buy', type: 'market', quantity: 500 });
    table[BTC] = 80;
    expect(await paper.fetchOrder(resting.exchangeOrderId, BTC)).toMatchObject({ status: 'rejected', filledQuantity: 0 });
  });

  it('is idempotent by client order id: the same id never places a second order', async () => {
    const { paper, order } = setup();
    const clientOrderId = newClientOrderId();
    const first = await order({ clientOrderId, symbol: BTC, side: 'buy', type: 'market', quantity: 1 });
    const again = await order({ clientOrderId, symbol: BTC, side: 'buy', type: 'market', quantity: 1 });
    expect(again).toEqual(first);
    expect((await paper.fetchPositions([BTC]))[0]?.quantity).toBe(1);
    expect(await paper.fetchOrderByClientId(clientOrderId, BTC)).toEqual(first);
    expect(await paper.fetchOrderByClientId(newClientOrderId(), BTC)).toBeNull();
  });

  it('cancels an open order once; a filled or unknown one cannot be cancelled', async () => {
    const { paper, order } = setup();
    const open = await order({ symbol: BTC, side: 'buy', type: 'limit', quantity: 1, price: 50 });
    expect(await paper.cancelOrder(open.exchangeOrderId, BTC)).toMatchObject({ status: 'cancelled' });
    expect((await rejection(paper.cancelOrder(open.exchangeOrderId, BTC))).reason).toBe('invalid_order');
    expect((await rejection(paper.cancelOrder('paper-999', BTC))).reason).toBe('order_not_found');
    expect((await rejection(paper.fetchOrder('paper-999', BTC))).code).toBe('NOT_FOUND');
  });

  it('lists markets and refuses symbols it has no price for or of the wrong market type', async () => {
    const { paper, order } = setup({ symbols: [BTC] });
    expect(Object.keys(await paper.loadMarkets())).toEqual([BTC]);
    expect(await paper.market(ETH)).toMatchObject({ symbol: ETH, base: 'ETH', quote: 'USDT', settle: 'USDT', type: 'swap', linear: true });
    expect(Object.keys(await paper.loadMarkets()).sort()).toEqual([BTC, ETH]);
    expect((await rejection(order({ symbol: 'DOGE/USDT:USDT', side: 'buy', type: 'market', quantity: 1 }))).reason).toBe('bad_symbol');
    expect((await rejection(order({ symbol: 'BTC/USDT', side: 'buy', type: 'market', quantity: 1 }))).reason).toBe('bad_symbol');
  });

  it('validates requests', async () => {
    const { order } = setup();
    expect((await rejection(order({ symbol: BTC, side: 'buy', type: 'limit', quantity: 1 }))).reason).toBe('invalid_order');
    expect((await rejection(order({ symbol: BTC, side: 'buy', type: 'market', quantity: -1 }))).reason).toBe('invalid_order');
    expect((await rejection(order({ symbol: BTC, side: 'buy', type: 'stop', quantity: 1 }))).reason).toBe('invalid_order');
  });

  it('reports an unreachable price source as unavailable', async () => {
    const paper = createPaperGateway({
      prices: () => {
        throw new Error('feed down');
      },
    });
    const error = await rejection(paper.createOrder({ clientOrderId: newClientOrderId(), symbol: BTC, side: 'buy', type: 'market', quantity: 1 }));
    expect(error.code).toBe('UNAVAILABLE');
  });

  it('reads each price once per call: orders resting on one symbol fill against the same tick, oldest first', async () => {
    let reads = 0;
    const table: Record<string, number> = { [BTC]: 100 };
    const paper = createPaperGateway({ prices: (s) => (reads++, table[s]), fees: { maker: 0, taker: 0 } });
    const a = await paper.createOrder({ clientOrderId: newClientOrderId(), symbol: BTC, side: 'buy', type: 'limit', quantity: 1, price: 90 });
    const b = await paper.createOrder({ clientOrderId: newClientOrderId(), symbol: BTC, side: 'buy', type: 'limit', quantity: 1, price: 95 });
    table[BTC] = 80;
    reads = 0;
    await paper.poll();
    expect(reads).toBe(1);
    expect((await paper.fetchOrder(a.exchangeOrderId, BTC)).averagePrice).toBe(90);
    expect((await paper.fetchOrder(b.exchangeOrderId, BTC)).averagePrice).toBe(95);
  });
});

describe('createPaperGateway (SPOT)', () => {
  const SPOT = 'BTC/USDT';

  it('moves base and quote balances, and needs the base it sells', async () => {
    const table: Record<string, number> = { [SPOT]: 100 };
    const paper = createPaperGateway({ prices: (s) => table[s], marketType: 'SPOT', fees, initialBalance: { USDT: 1_000 } });
    const bought = await paper.createOrder({ clientOrderId: newClientOrderId(), symbol: SPOT, side: 'buy', type: 'market', quantity: 2 });
    expect(bought).toMatchObject({ status: 'filled', averagePrice: 100, feeCurrency: 'USDT' });
    let balance = await paper.fetchBalance();
    expect(balance['BTC']).toEqual({ free: 2, used: 0, total: 2 });
    expect(balance['USDT']!.total).toBeCloseTo(1_000 - 200 - 0.4, 9);
    expect(await paper.fetchPositions([SPOT])).toEqual([]);
    table[SPOT] = 150;
    await paper.createOrder({ clientOrderId: newClientOrderId(), symbol: SPOT, side: 'sell', type: 'market', quantity: 2 });
    balance = await paper.fetchBalance();
    expect(balance['BTC']!.total).toBe(0);
    expect(balance['USDT']!.total).toBeCloseTo(1_000 - 200.4 + 300 - 0.6, 9);
    const error = await rejection(paper.createOrder({ clientOrderId: newClientOrderId(), symbol: SPOT, side: 'sell', type: 'market', quantity: 1 }));
    expect(error.reason).toBe('insufficient_funds');
    expect(
      (await rejection(paper.createOrder({ clientOrderId: newClientOrderId(), symbol: SPOT, side: 'sell', type: 'market', quantity: 1, reduceOnly: true })))
        .reason,
    ).toBe('invalid_order');
    expect((await rejection(paper.market('BTC/USDT:USDT'))).reason).toBe('bad_symbol');
  });
});

describe('createPaperGateway with persistence in the Store', () => {
  const clock = { now: () => new Date('2026-01-01T00:00:00.000Z') };

  /** Gateways over one saved account, as processes sharing a Store would have; `faults` makes the next saves throw. */
  function shared() {
    const store = createMemoryStore();
    const table: Record<string, number> = { [BTC]: 100, [ETH]: 10 };
    const faults = { saves: 0, loads: 0 };
    const base = createStorePaperPersistence(store, clock, 'cred_paper', 'LINEAR');
    const persistence: PaperPersistence = {
      load: async () => {
        if (faults.loads > 0) {
          faults.loads--;
          throw new Error('database is down');
        }
        return base.load();
      },
      save: async (state, version) => {
        if (faults.saves > 0) {
          faults.saves--;
          throw new Error('database is down');
        }
        return base.save(state, version);
      },
    };
    const gateway = () => createPaperGateway({ prices: (symbol) => table[symbol], fees, initialBalance: 10_000, persistence });
    const order = (paper: PaperGateway, request: Omit<CreateOrderRequest, 'clientOrderId'> & { clientOrderId?: string }) =>
      paper.createOrder({ clientOrderId: newClientOrderId(), ...request });
    return { store, table, gateway, order, faults };
  }

  it('keeps balances, positions and orders for the next instance (a restart)', async () => {
    const { gateway, order } = shared();
    const before = gateway();
    const filled = await order(before, { symbol: BTC, side: 'buy', type: 'market', quantity: 2 });
    const resting = await order(before, { symbol: ETH, side: 'buy', type: 'limit', price: 9, quantity: 1 });
    const balance = await before.fetchBalance();

    const after = gateway();
    expect(await after.fetchPositions([BTC])).toEqual(await before.fetchPositions([BTC]));
    expect(await after.fetchBalance()).toEqual(balance);
    expect(await after.fetchOrderByClientId(filled.clientOrderId!, BTC)).toEqual(filled);
    expect((await after.fetchOpenOrders()).map((o) => o.exchangeOrderId)).toEqual([resting.exchangeOrderId]);
    // New order ids continue after the saved ones.
    const next = await order(after, { symbol: BTC, side: 'sell', type: 'market', quantity: 1 });
    expect([filled.exchangeOrderId, resting.exchangeOrderId]).not.toContain(next.exchangeOrderId);
  });

  it('continues an account saved before the shared account model (positions with only qty, entry and margin)', async () => {
    const { store, table } = shared();
    // Saved by the paper exchange before it ran on engine/model: 2 BTC bought at 100 (leverage 2, taker 0.002) and a resting limit sell.
    const old = {
      account: {
        wallet: [['USDT', 9999.6]],
        positions: [[BTC, { qty: 2, entry: 100, margin: 100 }]],
        settleOf: [[BTC, 'USDT']],
        lastMarks: [],
      },
      orders: [
        {
          exchangeOrderId: 'paper-1',
          clientOrderId: 'old1',
          symbol: BTC,
          side: 'buy',
          type: 'market',
          status: 'filled',
          quantity: 2,
          price: null,
          stopPrice: null,
          reduceOnly: false,
          filledQuantity: 2,
          averagePrice: 100,
          fee: 0.4,
          feeCurrency: 'USDT',
          createdAt: '2026-01-01T00:00:00.000Z',
          updatedAt: '2026-01-01T00:00:00.000Z',
          reason: null,
          rested: false,
        },
        {
          exchangeOrderId: 'paper-2',
          clientOrderId: 'old2',
          symbol: BTC,
          side: 'sell',
          type: 'limit',
          status: 'open',
          quantity: 1,
          price: 120,
          stopPrice: null,
          reduceOnly: false,
          filledQuantity: 0,
          averagePrice: null,
          fee: 0,
          feeCurrency: 'USDT',
          createdAt: '2026-01-01T00:00:00.000Z',
          updatedAt: '2026-01-01T00:00:00.000Z',
          reason: null,
          rested: true,
        },
      ],
      nextId: 3,
      known: [{ symbol: BTC, base: 'BTC', quote: 'USDT', settle: 'USDT' }],
      marks: [],
    };
    expect(await store.paperAccounts.save('cred_old', 'LINEAR', JSON.stringify(old), 0, clock.now().toISOString())).toBe(true);
    const paper = createPaperGateway({
      prices: (symbol) => table[symbol],
      fees,
      leverage: 2,
      persistence: createStorePaperPersistence(store, clock, 'cred_old', 'LINEAR'),
    });

    // 100 x (1 - 1/2 + 0.005) = 50.5.
    expect(await paper.fetchPositions([BTC])).toEqual([
      { symbol: BTC, side: 'long', quantity: 2, entryPrice: 100, markPrice: 100, unrealizedPnl: 0, leverage: 2, liquidationPrice: 50.5 },
    ]);
    expect((await paper.fetchBalance())['USDT']).toEqual({ total: 9999.6, used: 100, free: 9899.6 });
    expect((await paper.fetchOpenOrders()).map((o) => o.exchangeOrderId)).toEqual(['paper-2']);

    table[BTC] = 125; // the limit sell fills at 120: +20, maker fee 0.12; half the margin is freed
    expect(await paper.fetchOrderByClientId('old2', BTC)).toMatchObject({ status: 'filled', averagePrice: 120 });
    const usdt = (await paper.fetchBalance())['USDT']!;
    expect(usdt.used).toBeCloseTo(50, 9);
    expect(usdt.total).toBeCloseTo(9999.6 + 20 - 0.12 + 25, 9);
    expect((await paper.createOrder({ clientOrderId: newClientOrderId(), symbol: BTC, side: 'sell', type: 'market', quantity: 1 })).exchangeOrderId).toBe(
      'paper-3',
    );
    expect(await paper.fetchPositions([BTC])).toEqual([]);
    expect((await paper.fetchBalance())['USDT']).toMatchObject({ used: 0 });
    expect((await paper.fetchBalance())['USDT']!.total).toBeCloseTo(9999.6 + 20 - 0.12 + 25 - 125 * 0.002, 9);
  });

  it('is one account for two instances (two processes), and loses no update when they trade at once', async () => {
    const { gateway, order } = shared();
    const a = gateway();
    const b = gateway();
    await order(a, { symbol: BTC, side: 'buy', type: 'market', quantity: 1 });
    expect((await b.fetchPositions([BTC]))[0]?.quantity).toBe(1);
    await Promise.all(Array.from({ length: 10 }, (_, i) => order(i % 2 ? a : b, { symbol: BTC, side: 'buy', type: 'market', quantity: 0.5 })));
    for (const paper of [a, b]) {
      expect((await paper.fetchPositions([BTC]))[0]?.quantity).toBeCloseTo(6, 12);
      // 6 units bought at 100 with the taker fee: the fees of every order left the wallet once.
      expect((await paper.fetchBalance())['USDT']!.total).toBeCloseTo(10_000 - 6 * 100 * 0.002, 9);
    }
  });

  it('answers UNAVAILABLE when the account cannot be saved or read, and keeps nothing of that call', async () => {
    const { gateway, order, faults } = shared();
    const paper = gateway();
    faults.saves = 1;
    const error = await rejection(order(paper, { symbol: BTC, side: 'buy', type: 'market', quantity: 1 }));
    expect(error.reason).toBe('unavailable');
    expect(await paper.fetchPositions([BTC])).toEqual([]);
    expect((await paper.fetchBalance())['USDT']!.total).toBe(10_000);
    faults.loads = 1;
    expect((await rejection(order(paper, { symbol: BTC, side: 'buy', type: 'market', quantity: 1 }))).reason).toBe('unavailable');
    expect(await paper.fetchPositions([BTC])).toEqual([]);
    await order(paper, { symbol: BTC, side: 'buy', type: 'market', quantity: 1 });
    expect((await gateway().fetchPositions([BTC]))[0]?.quantity).toBe(1);
  });
});

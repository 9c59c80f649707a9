import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { newClientOrderId } from '../exchanges/client-order-id.js';
import { ExchangeGatewayError, type CreateOrderRequest, type ExchangeGateway } from '../ports/exchange-gateway.js';

/*
 * The ExchangeGateway contract suite: the port's documented guarantees, as one reusable module
 * every gateway runs (the paper exchange, and ccxt against the local Binance double), in the
 * pattern of the Store contract suite (`store-contract.ts`).
 */

/** A fresh gateway on an empty account for one test, and how to trade on it. */
export interface ExchangeGatewayHarness {
  gateway: ExchangeGateway;
  /** A symbol the gateway lists and trades. */
  symbol: string;
  /** A symbol it does not list. Default `NOPE/NOPE`. */
  unlistedSymbol?: string;
  /** A quantity above the market's minimum that the account can afford at market. */
  quantity: number;
  /** A limit buy price far enough below the market that the order rests open. */
  restingBuyPrice: number;
  /** The currency the account holds (the settle or quote currency). */
  currency: string;
  cleanup(): Promise<void>;
}

export type ExchangeGatewayFactory = () => Promise<ExchangeGatewayHarness>;

async function failure(promise: Promise<unknown>): Promise<ExchangeGatewayError> {
  const error = await promise.then(
    () => new Error('expected the call to fail'),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ExchangeGatewayError);
  return error as ExchangeGatewayError;
}

export function describeExchangeGatewayContract(name: string, factory: ExchangeGatewayFactory): void {
  describe(`ExchangeGateway contract: ${name}`, () => {
    let h: ExchangeGatewayHarness;
    beforeEach(async () => {
      h = await factory();
    });
    afterEach(async () => {
      await h.cleanup();
    });

    const limitBuy = (clientOrderId = newClientOrderId()): CreateOrderRequest => ({
      clientOrderId,
      symbol: h.symbol,
      side: 'buy',
      type: 'limit',
      quantity: h.quantity,
      price: h.restingBuyPrice,
    });

    it('lists its markets, and market() answers one of them as loadMarkets does', async () => {
      const market = await h.gateway.market(h.symbol);
      expect(market).toMatchObject({ symbol: h.symbol, active: true });
      expect((await h.gateway.loadMarkets())[h.symbol]).toEqual(market);
      if (h.gateway.marketType === 'LINEAR') expect(market).toMatchObject({ type: 'swap', linear: true });
      if (h.gateway.marketType === 'SPOT') expect(market.type).toBe('spot');
    });

    it('answers an unlisted symbol with bad_symbol (NOT_FOUND)', async () => {
      const error = await failure(h.gateway.market(h.unlistedSymbol ?? 'NOPE/NOPE'));
      expect(error.reason).toBe('bad_symbol');
      expect(error.code).toBe('NOT_FOUND');
    });

    it('places an order under its client order id once, however often it is asked', async () => {
      const request = limitBuy();
      const first = await h.gateway.createOrder(request);
      expect(first).toMatchObject({ clientOrderId: request.clientOrderId, symbol: h.symbol, side: 'buy', type: 'limit', status: 'open', quantity: h.quantity });
      const again = await h.gateway.createOrder(request);
      expect(again.exchangeOrderId).toBe(first.exchangeOrderId);
      const open = (await h.gateway.fetchOpenOrders(h.symbol)).filter((o) => o.clientOrderId === request.clientOrderId);
      expect(open).toHaveLength(1);
    });

    it('finds an order by client order id, and null for one it never placed', async () => {
      const request = limitBuy();
      const placed = await h.gateway.createOrder(request);
      expect(await h.gateway.fetchOrderByClientId(request.clientOrderId, h.symbol)).toMatchObject({
        exchangeOrderId: placed.exchangeOrderId,
        clientOrderId: request.clientOrderId,
      });
      expect(await h.gateway.fetchOrderByClientId(newClientOrderId(), h.symbol)).toBeNull();
    });

    it('cancels an open order: answered cancelled, gone from the open orders', async () => {
      const placed = await h.gateway.createOrder(limitBuy());
      const cancelled = await h.gateway.cancelOrder(placed.exchangeOrderId, h.symbol);
      expect(cancelled).toMatchObject({ exchangeOrderId: placed.exchangeOrderId, status: 'cancelled' });
      expect((await h.gateway.fetchOpenOrders(h.symbol)).map((o) => o.exchangeOrderId)).not.toContain(placed.exchangeOrderId);
      expect((await h.gateway.fetchOrder(placed.exchangeOrderId, h.symbol)).status).toBe('cancelled');
    });

    it('lists open orders of one symbol and of all symbols', async () => {
      const a = await h.gateway.createOrder(limitBuy());
      const b = await h.gateway.createOrder(limitBuy());
      const ids = (list: Array<{ exchangeOrderId: string }>) => list.map((o) => o.exchangeOrderId);
      expect(ids(await h.gateway.fetchOpenOrders(h.symbol))).toEqual(expect.arrayContaining([a.exchangeOrderId, b.exchangeOrderId]));
      expect(ids(await h.gateway.fetchOpenOrders())).toEqual(expect.arrayContaining([a.exchangeOrderId, b.exchangeOrderId]));
    });

    it('answers an order it does not have with order_not_found (NOT_FOUND)', async () => {
      const error = await failure(h.gateway.fetchOrder('999999999', h.symbol));
      expect(error.reason).toBe('order_not_found');
      expect(error.code).toBe('NOT_FOUND');
    });

    it('fills a market order and shows its position (derivatives)', async () => {
      const filled = await h.gateway.createOrder({ clientOrderId: newClientOrderId(), symbol: h.symbol, side: 'buy', type: 'market', quantity: h.quantity });
      expect(filled).toMatchObject({ status: 'filled', filledQuantity: h.quantity });
      expect(filled.averagePrice).toBeGreaterThan(0);
      const positions = await h.gateway.fetchPositions([h.symbol]);
      if (h.gateway.marketType === 'SPOT') expect(positions).toEqual([]);
      else expect(positions).toEqual([expect.objectContaining({ symbol: h.symbol, side: 'long', quantity: h.quantity })]);
    });

    it('reports the balance of its currency, free + used = total', async () => {
      const entry = (await h.gateway.fetchBalance())[h.currency];
      expect(entry).toBeDefined();
      expect(entry!.total).toBeGreaterThan(0);
      expect(entry!.free).toBeGreaterThanOrEqual(0);
      expect(entry!.used).toBeGreaterThanOrEqual(0);
      expect(entry!.free + entry!.used).toBeCloseTo(entry!.total, 6);
    });
  });
}

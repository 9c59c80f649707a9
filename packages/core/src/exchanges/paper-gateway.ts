import { createSystemClock, type Clock } from '../ports/clock.js';
import { ExchangeGatewayError, type CreateOrderRequest, type ExchangeGateway, type ExchangeOrder, type ExchangeOrderType } from '../ports/exchange-gateway.js';
import { checkOrderRequest } from './check-order-request.js';
import { PAPER_EXCHANGE_ID } from './ccxt-exchanges.js';
import { createPaperAccount, type PaperAccountState, type PaperSymbol } from './paper-account.js';
import { createPaperFunding, type PaperFundingSource } from './paper-funding.js';
import { paperMarket, parsePaperSymbol } from './paper-markets.js';
import { createPaperMatching } from './paper-matching.js';
import { createPaperStateSync, type PaperPersistence } from './paper-persistence.js';
import { newPaperState, type PaperOrder, prunePaperOrders } from './paper-state.js';

export type { PaperFundingEvent, PaperFundingSource } from './paper-funding.js';
export type { PaperPersistence } from './paper-persistence.js';

/*
 * `paper`: the built-in simulated exchange, so a deployment runs offline with no set-up. This
 * file is its ExchangeGateway facade; its parts each have a file: the account's money
 * (paper-account.ts, the engine's account model), matching (paper-matching.ts, the engine's
 * matcher) with liquidation (paper-liquidation.ts), funding (paper-funding.ts), the state it
 * keeps (paper-state.ts) and where it keeps it (paper-persistence.ts).
 *
 * Prices come from `prices(symbol)` (a live ticker, synthetic prices, the last candle close...).
 * Orders fill by the backtest's fill model (docs/backtest-model.md), the stretch between two
 * price reads being the candle (paper-matching.ts). An order whose fill the account could not
 * pay for at its own price now is refused at placement (insufficient funds); one that rests and
 * finds the money gone when it triggers is rejected then.
 * Limit and stop orders are checked against the price read at placement, then at every later
 * read: each call to the gateway (and `poll()`) first reads the price of every symbol with
 * resting orders or an open position and settles the stretch since the previous read. One call
 * reads each symbol's price once: that read is the tick everything in the call fills against.
 *
 * A read settles the stretch that ends at it in the backtest's order (docs/backtest-model.md,
 * "What happens on each candle"): liquidation, resting orders oldest first, then funding
 * (paper-funding.ts). Then the call does what it was asked (a market order fills now, after
 * funding, like the backtest's market orders at the open).
 *
 * State (balances, positions, open orders, the last 200 closed ones, the time up to which funding
 * is paid) lives in this object's memory and, with `persistence`, in the Store
 * (paper-persistence.ts), so a paper account survives restarts and is one account for every
 * process trading on it.
 */

/** Where the paper exchange reads prices: the last price of a symbol, or null/undefined if it does not know the symbol. */
export type PaperPriceSource = (symbol: string) => number | null | undefined | Promise<number | null | undefined>;

export interface PaperGatewayOptions {
  prices: PaperPriceSource;
  /** Fractions of notional. Default `{ maker: 0.0002, taker: 0.0005 }`, as the backtest. */
  fees?: { maker: number; taker: number };
  /** Fraction of price moved against market and stop fills. Default 0. */
  slippage?: number;
  /** Starting balances by currency, or an amount of USDT. Default 10,000 USDT. */
  initialBalance?: number | Record<string, number>;
  /** LINEAR (default): `BASE/USDT:USDT` perpetuals with margin; SPOT: `BASE/QUOTE` with balances. */
  marketType?: 'LINEAR' | 'SPOT';
  /** Leverage of LINEAR positions (margin = notional / leverage). Default 1. */
  leverage?: number;
  /** Maintenance margin of LINEAR positions, a fraction of entry notional: sets the liquidation price. Default 0.005, as the backtest. */
  maintenanceMarginRate?: number;
  /** Funding rates of LINEAR symbols (`createMarketDataFundingSource` reads them from the MarketData port). Default: none, no funding. */
  funding?: PaperFundingSource;
  /** Symbols `loadMarkets` lists from the start; any well-formed symbol the price source knows is tradable. */
  symbols?: readonly string[];
  /** Order timestamps. Default: the system clock. */
  clock?: Clock;
  /** Where the account is kept between operations. Default: memory only (lost on restart). */
  persistence?: PaperPersistence;
}

/** A paper exchange: the ExchangeGateway port, plus `poll()` to match resting orders now. */
export interface PaperGateway extends ExchangeGateway {
  /** Reads the price of every symbol with resting orders and fills what the prices allow. */
  poll(): Promise<void>;
}

/** Runs of an operation whose save another process beat, before giving up with `unavailable`. */
const MAX_SAVE_ATTEMPTS = 5;
const DEFAULT_FEES = { maker: 0.0002, taker: 0.0005 };
/** As the backtest's default `maintenanceMarginRate`. */
const DEFAULT_MAINTENANCE_MARGIN_RATE = 0.005;
export function createPaperGateway(options: PaperGatewayOptions): PaperGateway {
  const linear = (options.marketType ?? 'LINEAR') === 'LINEAR';
  const fees = options.fees ?? DEFAULT_FEES;
  const slippage = options.slippage ?? 0;
  const leverage = options.leverage ?? 1;
  const maintenanceMarginRate = options.maintenanceMarginRate ?? DEFAULT_MAINTENANCE_MARGIN_RATE;
  const clock = options.clock ?? createSystemClock();
  const initial = options.initialBalance ?? 10_000;
  const newAccount = (state?: PaperAccountState) =>
    createPaperAccount({
      initialBalance: typeof initial === 'number' ? { USDT: initial } : { ...initial },
      leverage,
      linear,
      settle: 'USDT',
      maintenanceMarginRate,
      ...(state ? { state } : {}),
    });
  const state = newPaperState(newAccount());
  const now = () => clock.now().toISOString();
  const matching = createPaperMatching(state, { slippage }, fees, { nowIso: now, nowMs: () => clock.now().getTime() });
  const funding = createPaperFunding(state, linear, clock, options.funding);
  const sync = options.persistence ? createPaperStateSync(options.persistence, state, newAccount) : null;
  let queue: Promise<unknown> = Promise.resolve();
  /** Prices read during the current operation: each operation reads each symbol's price once (one tick). */
  let tick = new Map<string, number | null>();

  const error = (reason: ConstructorParameters<typeof ExchangeGatewayError>[1], message: string, clientOrderId?: string) =>
    new ExchangeGatewayError(PAPER_EXCHANGE_ID, reason, message, clientOrderId === undefined ? undefined : { clientOrderId });

  /**
   * Runs one operation at a time, so price reads never interleave with fills; with
   * `persistence`, on the newest saved state, saving what it changed (even when it then throws).
   */
  function serialize<T>(fn: () => Promise<T>): Promise<T> {
    const once = async (): Promise<{ saved: boolean; run: () => T }> => {
      tick = new Map();
      try {
        if (sync) await sync.refresh();
        let run: () => T;
        try {
          const value = await fn();
          run = () => value;
        } catch (failure) {
          run = () => {
            throw failure;
          };
        }
        funding.closeStep();
        prunePaperOrders(state);
        return { saved: sync ? await sync.save() : true, run };
      } finally {
        tick = new Map();
      }
    };
    const run = async () => {
      for (let attempt = 1; ; attempt++) {
        const outcome = await once();
        if (outcome.saved) return outcome.run();
        // Another process saved first: the next run starts from its state.
        if (attempt >= MAX_SAVE_ATTEMPTS) throw error('unavailable', 'paper: the account kept changing in another process; try again');
      }
    };
    const result = queue.then(run, run);
    queue = result.catch(() => undefined);
    return result;
  }

  const view = (order: PaperOrder): ExchangeOrder => {
    const { reason: _reason, rested: _rested, ...rest } = order;
    return { ...rest };
  };

  async function readPrice(symbol: string): Promise<number | null> {
    if (tick.has(symbol)) return tick.get(symbol)!;
    let price: number | null | undefined;
    try {
      price = await options.prices(symbol);
    } catch {
      throw error('unavailable', `paper: no price for ${symbol} right now`);
    }
    if (price === null || price === undefined) {
      tick.set(symbol, null);
      return null;
    }
    if (!(Number.isFinite(price) && price > 0)) throw error('unavailable', `paper: no valid price for ${symbol} right now`);
    tick.set(symbol, price);
    state.marks.set(symbol, price);
    return price;
  }

  async function symbolInfo(symbol: string): Promise<{ info: PaperSymbol; price: number }> {
    const info = state.known.get(symbol) ?? parsePaperSymbol(symbol, linear);
    const price = info ? await readPrice(symbol) : null;
    if (!info || price === null) throw error('bad_symbol', `paper does not list ${symbol} as a ${linear ? 'LINEAR' : 'SPOT'} market`);
    state.known.set(symbol, info);
    return { info, price };
  }

  /** Settles the stretch since the previous read of every symbol with resting orders or a position: liquidation, resting orders, funding. */
  async function pollNow() {
    const open = [...state.orders.values()].filter((o) => o.status === 'open');
    const symbols = [...new Set([...open.map((o) => o.symbol), ...state.account.openSymbols()])];
    for (const symbol of symbols) {
      const info = state.known.get(symbol);
      const price = info ? await readPrice(symbol).catch(() => null) : null;
      if (!info || price === null) continue;
      matching.settle(info, price);
    }
    await funding.fundNow((symbol) => tick.get(symbol) ?? state.marks.get(symbol));
  }

  async function createOrder(request: CreateOrderRequest): Promise<ExchangeOrder> {
    const existing = state.byClientId.get(request.clientOrderId);
    if (existing !== undefined) return view(state.orders.get(existing)!);
    checkOrderRequest(PAPER_EXCHANGE_ID, linear ? 'LINEAR' : 'SPOT', request);
    const { info, price } = await symbolInfo(request.symbol);
    await pollNow();
    const side = request.side === 'buy' ? 1 : -1;
    // Refused at placement when the account could not pay for it at its own price now.
    const reference = request.type === 'limit' ? request.price! : request.type === 'stop' ? request.stopPrice! : price;
    const reduces = request.reduceOnly === true;
    if (!reduces) {
      const refusal = state.account.refusal(info, side, request.quantity, reference, request.type === 'limit' ? fees.maker : fees.taker, state.marks);
      if (refusal) throw error('insufficient_funds', `paper refused the order: ${refusal}`, request.clientOrderId);
    }
    const time = now();
    const order: PaperOrder = {
      exchangeOrderId: `paper-${state.nextId++}`,
      clientOrderId: request.clientOrderId,
      symbol: request.symbol,
      side: request.side,
      type: request.type,
      status: 'open',
      quantity: request.quantity,
      price: request.type === 'limit' ? request.price! : null,
      stopPrice: request.type === 'stop' ? request.stopPrice! : null,
      reduceOnly: reduces,
      filledQuantity: 0,
      averagePrice: null,
      fee: 0,
      feeCurrency: linear ? info.settle : info.quote,
      createdAt: time,
      updatedAt: time,
      reason: null,
      rested: false,
    };
    state.orders.set(order.exchangeOrderId, order);
    state.byClientId.set(order.clientOrderId!, order.exchangeOrderId);
    matching.matchNew(order, info, price);
    return view(order);
  }

  function find(exchangeOrderId: string): PaperOrder {
    const order = state.orders.get(exchangeOrderId);
    if (!order) throw error('order_not_found', `paper has no order ${exchangeOrderId}`);
    return order;
  }

  return {
    exchangeId: PAPER_EXCHANGE_ID,

    poll: () => serialize(pollNow),

    loadMarkets: () =>
      serialize(async () => {
        for (const symbol of options.symbols ?? []) {
          const info = parsePaperSymbol(symbol, linear);
          if (info) state.known.set(symbol, info);
        }
        return Object.fromEntries([...state.known.values()].map((s) => [s.symbol, paperMarket(s, linear)]));
      }),

    market: (symbol) => serialize(async () => paperMarket((await symbolInfo(symbol)).info, linear)),

    fetchBalance: () =>
      serialize(async () => {
        await pollNow();
        for (const symbol of state.account.openSymbols()) await readPrice(symbol).catch(() => null);
        return state.account.balance(state.marks);
      }),

    createOrder: (request) => serialize(() => createOrder(request)),

    fetchOrderByClientId: (clientOrderId, _symbol, _hint?: { type?: ExchangeOrderType }) =>
      serialize(async () => {
        await pollNow();
        const id = state.byClientId.get(clientOrderId);
        return id === undefined ? null : view(state.orders.get(id)!);
      }),

    fetchOrder: (exchangeOrderId) =>
      serialize(async () => {
        await pollNow();
        return view(find(exchangeOrderId));
      }),

    cancelOrder: (exchangeOrderId) =>
      serialize(async () => {
        await pollNow();
        const order = find(exchangeOrderId);
        if (order.status !== 'open') throw error('invalid_order', `paper cannot cancel order ${exchangeOrderId}: it is ${order.status}`);
        Object.assign(order, { status: 'cancelled', reason: 'cancelled by the user', updatedAt: now() });
        return view(order);
      }),

    fetchOpenOrders: (symbol) =>
      serialize(async () => {
        await pollNow();
        return [...state.orders.values()].filter((o) => o.status === 'open' && (symbol === undefined || o.symbol === symbol)).map(view);
      }),

    fetchPositions: (symbols) =>
      serialize(async () => {
        await pollNow();
        for (const symbol of symbols) if (state.account.positionOf(symbol) !== 0) await readPrice(symbol).catch(() => null);
        return state.account.positions(symbols, state.marks);
      }),
  };
}

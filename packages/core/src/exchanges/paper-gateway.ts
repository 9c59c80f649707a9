import { limitFillPrice, marketFillPrice, stopFillPrice } from '../engine/model/fill-prices.js';
import { createSystemClock, type Clock } from '../ports/clock.js';
import {
  ExchangeGatewayError,
  type CreateOrderRequest,
  type ExchangeGateway,
  type ExchangeMarket,
  type ExchangeOrder,
  type ExchangeOrderType,
} from '../ports/exchange-gateway.js';
import { checkOrderRequest } from './check-order-request.js';
import { PAPER_EXCHANGE_ID } from './ccxt-exchanges.js';
import { createPaperAccount, type PaperAccountState, type PaperSymbol } from './paper-account.js';

/*
 * `paper`: the built-in simulated exchange, so a deployment runs offline with no set-up.
 *
 * Prices come from `prices(symbol)` (a live ticker, synthetic prices, the last candle close...).
 * Orders fill by the backtest's fill model (docs/backtest-model.md), the stretch between two
 * price reads being the candle: it opens at the earlier price and ends at the later one, passing
 * every price between. An order placed now has no earlier price: its first candle is the price
 * read at placement alone.
 * - market: at the price read when the order arrives, moved against the trader by `slippage`
 *   (`price x (1 + slippage)` for a buy, `x (1 - slippage)` for a sell), taker fee;
 * - limit: when the price trades through the limit (a buy when the price is strictly below it,
 *   a sell strictly above), maker fee; at the limit for a resting order (the price passed it),
 *   at the price read if the order could fill at once when placed (the better of the two);
 * - stop (stop-market): when the price reaches the stop (a buy at or above, a sell at or below),
 *   taker fee; at the stop moved by `slippage` for a resting order, at the worse of the stop and
 *   the price read (moved by `slippage`) if it triggered at once when placed;
 * - reduce-only: cut to the position's size; cancelled if there is no position to reduce;
 * - an order whose fill the account cannot pay is refused at placement (insufficient funds)
 *   or, if it rests and the money is gone when it triggers, rejected then.
 * Limit and stop orders are checked against the price read at placement, then at every later
 * read: each call to the gateway (and `poll()`) first reads the price of every symbol with
 * resting orders or an open position and settles the stretch since the previous read. One call
 * reads each symbol's price once: that read is the tick everything in the call fills against.
 *
 * The account is the engine's account model (paper-account.ts), and a read settles the stretch
 * that ends at it in the backtest's order (docs/backtest-model.md, "What happens on each candle"):
 * 1. liquidation: a LINEAR position whose price reached its liquidation price (the model's
 *    `liquidationPrice` with `maintenanceMarginRate`) is closed there with `liquidate()`: the
 *    position is gone and its whole margin lost. The port has no liquidation event, so it is
 *    kept as a closed order (`filled`, reduce-only, market, no client order id, `fee` = what
 *    was left of the margin) that `fetchOrder` answers by its id; `fetchPositions` no longer
 *    lists the position and `fetchBalance` has lost the margin;
 * 2. resting orders, oldest first, each fill followed by the liquidation check at the read;
 * 3. funding (with `funding`): every funding event of an open LINEAR position's symbol whose
 *    time is after the last one paid and not after now is paid with the model's `payFunding` at
 *    the price read now (the backtest pays it at the open of the first candle at or after its
 *    time, before that candle's market orders). A position opened by a resting order during the
 *    stretch pays the events of the stretch, one opened by the call itself (after this step) the
 *    later ones. When the funding source fails, the events are paid at a later call.
 * Then the call does what it was asked (a market order fills now, after funding, like the
 * backtest's market orders at the open).
 *
 * State (balances, positions, open orders, the last 200 closed ones, the time up to which funding
 * is paid) lives in this object's memory,
 * and, with `persistence`, in the Store: every operation starts from the saved state if another
 * process saved a newer one, and saves what it changed with a compare-and-set on the version;
 * when another process saved first, the operation runs again on that state (the paper exchange
 * has no effect outside its state, so running an operation again is safe). So a paper account
 * survives restarts and is one account for every process trading on it.
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

/** One funding event: at `time` (epoch ms) an open position pays `quantity x price x rate` (a long pays a positive rate, a short receives it). */
export interface PaperFundingEvent {
  time: number;
  rate: number;
}

/**
 * Where the paper exchange reads funding rates: the events of `symbol` with `fromMs < time <=
 * toMs` that have happened, in any order (others are ignored). A symbol without funding answers
 * `[]`; a failure (thrown or rejected) leaves the events to be paid at a later call.
 */
export type PaperFundingSource = (symbol: string, fromMs: number, toMs: number) => Promise<readonly PaperFundingEvent[]> | readonly PaperFundingEvent[];

/** A paper account's saved state, as `PaperAccountRepository` keeps it for one (credential, market type). */
export interface PaperPersistence {
  /** The saved state and its version, or null if it was never saved. */
  load(): Promise<{ state: string; version: number } | null>;
  /** Saves `state` as version `version + 1` only if the saved version is still `version` (0: none); false otherwise. */
  save(state: string, version: number): Promise<boolean>;
}

/** Closed orders kept (and answered by `fetchOrder`) besides every open one. */
const KEEP_CLOSED_ORDERS = 200;
/** Runs of an operation whose save another process beat, before giving up with `unavailable`. */
const MAX_SAVE_ATTEMPTS = 5;

interface SavedPaperState {
  account: PaperAccountState;
  orders: PaperOrder[];
  nextId: number;
  known: PaperSymbol[];
  marks: Array<[string, number]>;
  /**
   * Funding events up to this time (epoch ms) are settled for the open positions; null when no
   * position is open. Missing in states saved before funding: then from the first call on.
   */
  fundingUpTo?: number | null;
}

/** A paper exchange: the ExchangeGateway port, plus `poll()` to match resting orders now. */
export interface PaperGateway extends ExchangeGateway {
  /** Reads the price of every symbol with resting orders and fills what the prices allow. */
  poll(): Promise<void>;
}

interface PaperOrder extends ExchangeOrder {
  /** Why it was cancelled or rejected, if it was. */
  reason: string | null;
  /** Whether it rested through an earlier price read (so later reads are candles it saw whole). */
  rested: boolean;
}

const DEFAULT_FEES = { maker: 0.0002, taker: 0.0005 };
/** As the backtest's default `maintenanceMarginRate`. */
const DEFAULT_MAINTENANCE_MARGIN_RATE = 0.005;
const LIQUIDATION_REASON = 'liquidation: the loss reached the isolated margin less the maintenance margin';

/** `BASE/QUOTE:SETTLE` (LINEAR, settle = quote) or `BASE/QUOTE` (SPOT), else null. */
function parseSymbol(symbol: string, linear: boolean): PaperSymbol | null {
  const match = /^([A-Z0-9]{1,20})\/([A-Z0-9]{1,20})(?::([A-Z0-9]{1,20}))?$/.exec(symbol);
  if (!match) return null;
  const [, base, quote, settle] = match as unknown as [string, string, string, string | undefined];
  if (linear ? settle !== quote : settle !== undefined) return null;
  return { symbol, base, quote, settle: settle ?? null };
}

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
  let account = newAccount();
  let orders = new Map<string, PaperOrder>();
  let byClientId = new Map<string, string>();
  let known = new Map<string, PaperSymbol>();
  let marks = new Map<string, number>();
  let nextId = 1;
  /** See `SavedPaperState.fundingUpTo`. */
  let fundingUpTo: number | null = null;
  /** Time of this object's previous funding step: where the stretch of the current read began (not saved). */
  let lastSettle: number | null = null;
  let queue: Promise<unknown> = Promise.resolve();
  const persistence = options.persistence;
  /** The version of the saved state this object holds, and its text (0 and '' before the first save). */
  let version = 0;
  let savedText = '';

  /** Forgets all but the newest `KEEP_CLOSED_ORDERS` closed orders. */
  function prune() {
    const closed = [...orders.values()].filter((o) => o.status !== 'open');
    for (const o of closed.slice(0, Math.max(0, closed.length - KEEP_CLOSED_ORDERS))) {
      orders.delete(o.exchangeOrderId);
      if (o.clientOrderId !== null) byClientId.delete(o.clientOrderId);
    }
  }

  /**
   * The saved form of the account. Prices seen are left out: they change at every read, and
   * saving them would write the account on every call; after a restore they are read again.
   */
  function stateText(): string {
    const state: SavedPaperState = {
      account: { ...account.state(), lastMarks: [] },
      orders: [...orders.values()],
      nextId,
      known: [...known.values()],
      marks: [],
      fundingUpTo,
    };
    return JSON.stringify(state);
  }

  function restore(text: string) {
    const state = JSON.parse(text) as SavedPaperState;
    account = newAccount(state.account);
    orders = new Map(state.orders.map((o) => [o.exchangeOrderId, o]));
    byClientId = new Map(state.orders.flatMap((o) => (o.clientOrderId === null ? [] : [[o.clientOrderId, o.exchangeOrderId] as const])));
    nextId = state.nextId;
    known = new Map(state.known.map((s) => [s.symbol, s]));
    marks = new Map(state.marks);
    fundingUpTo = state.fundingUpTo ?? null;
    // Another process may have read since: the stretch of the next read starts at that read.
    lastSettle = null;
  }

  /** Takes the saved state if it is not the one held here (another process saved, or a save failed here). */
  async function refresh(store: PaperPersistence) {
    const saved = await store.load();
    if (saved === null) {
      if (version === 0) return;
      account = newAccount();
      orders = new Map();
      byClientId = new Map();
      known = new Map();
      marks = new Map();
      nextId = 1;
      fundingUpTo = null;
      lastSettle = null;
      version = 0;
      savedText = '';
    } else if (saved.version !== version) {
      restore(saved.state);
      version = saved.version;
      savedText = saved.state;
    }
  }
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
        if (persistence) {
          try {
            await refresh(persistence);
          } catch {
            throw error('unavailable', 'paper: the account could not be read; nothing was done, try again');
          }
        }
        let run: () => T;
        try {
          const value = await fn();
          run = () => value;
        } catch (failure) {
          run = () => {
            throw failure;
          };
        }
        closeFundingStep();
        prune();
        if (!persistence) return { saved: true, run };
        const text = stateText();
        if (text === savedText) return { saved: true, run };
        let saved: boolean;
        try {
          saved = await persistence.save(text, version);
        } catch {
          // What this operation did is not kept: the next one starts again from the saved state.
          version = -1;
          throw error('unavailable', 'paper: the account could not be saved; nothing was done, try again');
        }
        if (!saved) return { saved: false, run };
        version++;
        savedText = text;
        return { saved: true, run };
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

  const now = () => clock.now().toISOString();
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
    marks.set(symbol, price);
    return price;
  }

  async function symbolInfo(symbol: string): Promise<{ info: PaperSymbol; price: number }> {
    const info = known.get(symbol) ?? parseSymbol(symbol, linear);
    const price = info ? await readPrice(symbol) : null;
    if (!info || price === null) throw error('bad_symbol', `paper does not list ${symbol} as a ${linear ? 'LINEAR' : 'SPOT'} market`);
    known.set(symbol, info);
    return { info, price };
  }

  const toMarket = (s: PaperSymbol): ExchangeMarket => ({
    symbol: s.symbol,
    base: s.base,
    quote: s.quote,
    settle: s.settle,
    type: linear ? 'swap' : 'spot',
    linear: linear ? true : null,
    contractSize: linear ? 1 : null,
    amountStep: null,
    priceStep: null,
    minQuantity: null,
    minCost: null,
    active: true,
  });

  /**
   * The fill price of an order at `price` by the model's fill prices (engine/model/fill-prices.ts)
   * over the stretch since the previous read, with its fee rate, or null if it does not fill
   * there. An order placed now sees only the price read: its candle opens, peaks and bottoms
   * there. A resting order did not fill at the previous read, so its stretch opened beyond its
   * level, on the side where it does not fill, and ended at `price`: it fills at the level.
   */
  function fillAt(order: PaperOrder, price: number): { px: number; feeRate: number } | null {
    const side = order.side === 'buy' ? 1 : -1;
    if (order.type === 'market') return { px: marketFillPrice(side, price, slippage), feeRate: fees.taker };
    const limit = order.type === 'limit';
    const level = limit ? order.price! : order.stopPrice!;
    const open = order.rested ? ((limit ? side : -side) > 0 ? Number.POSITIVE_INFINITY : Number.NEGATIVE_INFINITY) : price;
    const high = Math.max(open, price);
    const low = Math.min(open, price);
    const px = limit ? limitFillPrice(side, open, high, low, level) : stopFillPrice(side, open, high, low, level, slippage);
    return Number.isNaN(px) ? null : { px, feeRate: limit ? fees.maker : fees.taker };
  }

  /** Tries to fill an open order at `price`; changes its status if it fills, is cancelled or rejected. */
  function match(order: PaperOrder, info: PaperSymbol, price: number) {
    const at = fillAt(order, price);
    if (!at) {
      order.rested = true;
      return;
    }
    const side = order.side === 'buy' ? 1 : -1;
    let quantity = order.quantity;
    if (order.reduceOnly) {
      const position = account.positionOf(order.symbol);
      if (position === 0 || position > 0 === side > 0) {
        Object.assign(order, { status: 'cancelled', reason: 'reduce-only order has no position to reduce', updatedAt: now() });
        return;
      }
      quantity = Math.min(quantity, Math.abs(position));
    }
    const refusal = account.refusal(info, side, quantity, at.px, at.feeRate, marks);
    if (refusal) {
      Object.assign(order, { status: 'rejected', reason: refusal, updatedAt: now() });
      return;
    }
    const fee = account.fill(info, side, quantity, at.px, at.feeRate, clock.now().getTime());
    Object.assign(order, { status: 'filled', filledQuantity: quantity, averagePrice: at.px, fee, updatedAt: now() });
    liquidateIfReached(info, price);
  }

  /** Liquidates the LINEAR position of `info` if `price` reached its liquidation price, and keeps the closed order that records it. */
  function liquidateIfReached(info: PaperSymbol, price: number) {
    const done = account.liquidateAt(info.symbol, price);
    if (!done) return;
    const time = now();
    const order: PaperOrder = {
      exchangeOrderId: `paper-${nextId++}`,
      clientOrderId: null,
      symbol: info.symbol,
      side: done.side > 0 ? 'buy' : 'sell',
      type: 'market',
      status: 'filled',
      quantity: done.quantity,
      price: null,
      stopPrice: null,
      reduceOnly: true,
      filledQuantity: done.quantity,
      averagePrice: done.price,
      fee: done.fee,
      feeCurrency: info.settle,
      createdAt: time,
      updatedAt: time,
      reason: LIQUIDATION_REASON,
      rested: false,
    };
    orders.set(order.exchangeOrderId, order);
  }

  /**
   * Pays the funding events due on the open LINEAR positions (see the top comment): those after
   * `fundingUpTo` (or, with nothing open at the previous step, after that step) up to now, at the
   * price read in this call (the last price seen if the read failed), in time order.
   */
  async function fundNow() {
    if (!linear) return;
    const time = clock.now().getTime();
    const open = account.openSymbols();
    const from = fundingUpTo ?? lastSettle ?? time;
    lastSettle = time;
    if (open.length === 0) {
      fundingUpTo = null;
      return;
    }
    fundingUpTo = from;
    if (!options.funding || !(time > from)) return;
    const due: Array<{ time: number; order: number; symbol: string; rate: number; price: number }> = [];
    for (const [order, symbol] of open.entries()) {
      const price = tick.get(symbol) ?? marks.get(symbol);
      if (price === undefined) return;
      let events: readonly PaperFundingEvent[];
      try {
        events = await options.funding(symbol, from, time);
      } catch {
        return;
      }
      for (const e of events) if (e.time > from && e.time <= time && Number.isFinite(e.rate)) due.push({ time: e.time, order, symbol, rate: e.rate, price });
    }
    if (due.length === 0) return;
    due.sort((a, b) => a.time - b.time || a.order - b.order);
    for (const e of due) account.payFunding(e.symbol, e.price, e.rate);
    fundingUpTo = time;
  }

  /** At the end of every call: no position, nothing owed; a position opened by the call pays the events after now. */
  function closeFundingStep() {
    if (!linear) return;
    if (account.openSymbols().length === 0) fundingUpTo = null;
    else fundingUpTo ??= clock.now().getTime();
  }

  /** Settles the stretch since the previous read of every symbol with resting orders or a position: liquidation, resting orders, funding. */
  async function pollNow() {
    const open = [...orders.values()].filter((o) => o.status === 'open');
    const symbols = [...new Set([...open.map((o) => o.symbol), ...account.openSymbols()])];
    for (const symbol of symbols) {
      const info = known.get(symbol);
      const price = info ? await readPrice(symbol).catch(() => null) : null;
      if (!info || price === null) continue;
      liquidateIfReached(info, price);
      for (const order of open) if (order.symbol === symbol && order.status === 'open') match(order, info, price);
    }
    await fundNow();
  }

  async function createOrder(request: CreateOrderRequest): Promise<ExchangeOrder> {
    const existing = byClientId.get(request.clientOrderId);
    if (existing !== undefined) return view(orders.get(existing)!);
    checkOrderRequest(PAPER_EXCHANGE_ID, linear ? 'LINEAR' : 'SPOT', request);
    const { info, price } = await symbolInfo(request.symbol);
    await pollNow();
    const side = request.side === 'buy' ? 1 : -1;
    // Refused at placement when the account could not pay for it at its own price now.
    const reference = request.type === 'limit' ? request.price! : request.type === 'stop' ? request.stopPrice! : price;
    const reduces = request.reduceOnly === true;
    if (!reduces) {
      const refusal = account.refusal(info, side, request.quantity, reference, request.type === 'limit' ? fees.maker : fees.taker, marks);
      if (refusal) throw error('insufficient_funds', `paper refused the order: ${refusal}`, request.clientOrderId);
    }
    const time = now();
    const order: PaperOrder = {
      exchangeOrderId: `paper-${nextId++}`,
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
    orders.set(order.exchangeOrderId, order);
    byClientId.set(order.clientOrderId!, order.exchangeOrderId);
    match(order, info, price);
    return view(order);
  }

  function find(exchangeOrderId: string): PaperOrder {
    const order = orders.get(exchangeOrderId);
    if (!order) throw error('order_not_found', `paper has no order ${exchangeOrderId}`);
    return order;
  }

  return {
    exchangeId: PAPER_EXCHANGE_ID,

    poll: () => serialize(pollNow),

    loadMarkets: () =>
      serialize(async () => {
        for (const symbol of options.symbols ?? []) {
          const info = parseSymbol(symbol, linear);
          if (info) known.set(symbol, info);
        }
        return Object.fromEntries([...known.values()].map((s) => [s.symbol, toMarket(s)]));
      }),

    market: (symbol) => serialize(async () => toMarket((await symbolInfo(symbol)).info)),

    fetchBalance: () =>
      serialize(async () => {
        await pollNow();
        for (const symbol of account.openSymbols()) await readPrice(symbol).catch(() => null);
        return account.balance(marks);
      }),

    createOrder: (request) => serialize(() => createOrder(request)),

    fetchOrderByClientId: (clientOrderId, _symbol, _hint?: { type?: ExchangeOrderType }) =>
      serialize(async () => {
        await pollNow();
        const id = byClientId.get(clientOrderId);
        return id === undefined ? null : view(orders.get(id)!);
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
        return [...orders.values()].filter((o) => o.status === 'open' && (symbol === undefined || o.symbol === symbol)).map(view);
      }),

    fetchPositions: (symbols) =>
      serialize(async () => {
        await pollNow();
        for (const symbol of symbols) if (account.positionOf(symbol) !== 0) await readPrice(symbol).catch(() => null);
        return account.positions(symbols, marks);
      }),
  };
}

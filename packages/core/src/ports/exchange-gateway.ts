import { StratboxError } from '../errors/stratbox-error.js';
import type { ErrorCode } from '@stratbox/contract';

/*
 * The ExchangeGateway port: orders, positions and balances of one exchange account, in core's
 * own types (no ccxt type crosses it). Implementations: `createCcxtGateway` (any ccxt exchange)
 * and `createPaperGateway` (the built-in simulated exchange `paper`). Deployments get one from
 * `createExchangeClientPool`, which shares one client (and its rate limiter) per credential.
 *
 * Symbols are ccxt unified symbols: `BTC/USDT:USDT` is the USDT-margined linear perpetual,
 * `BTC/USDT` the spot market. Quantities are in the market's amount unit (base currency, or
 * contracts where the exchange counts contracts); prices in the quote currency.
 *
 * Errors: every failure is an `ExchangeGatewayError` (a `StratboxError`) with a `reason`:
 * - `unavailable`: network errors, timeouts, rate limits, maintenance. Implementations retry
 *   these with backoff first; the error means it stayed unavailable (code UNAVAILABLE).
 * - `unknown_outcome`: createOrder could not learn whether the order was placed, and looking it
 *   up by client order id did not find it (code UNAVAILABLE). The order may exist: resolve it
 *   later with `fetchOrderByClientId`, never by placing it again under another id.
 * - `insufficient_funds` (CONFLICT), `invalid_order` (VALIDATION_FAILED), `bad_symbol` and
 *   `order_not_found` (NOT_FOUND), `authentication` (FORBIDDEN: the exchange refused the key),
 *   `not_supported` (NOT_IMPLEMENTED), `rejected` (CONFLICT: any other refusal by the
 *   exchange). These are final: retrying the same request gives the same answer.
 * Messages name the exchange and what went wrong; they never contain API keys, secrets or
 * request signatures.
 */

export type ExchangeOrderSide = 'buy' | 'sell';
/** `stop`: a stop-market order that triggers when the price reaches `stopPrice`. */
export type ExchangeOrderType = 'market' | 'limit' | 'stop';
/** As the exchange reports it. (`pending`, "written but not yet sent", exists only in the Store.) */
export type ExchangeOrderStatus = 'open' | 'partially_filled' | 'filled' | 'cancelled' | 'rejected';

export interface CreateOrderRequest {
  /**
   * The caller's id of this order, sent to the exchange (ccxt's unified `clientOrderId`) and
   * used to find it again. At most 32 characters of [A-Za-z0-9] fits every major exchange;
   * `newClientOrderId()` makes one.
   */
  clientOrderId: string;
  symbol: string;
  side: ExchangeOrderSide;
  type: ExchangeOrderType;
  /** > 0, in the market's amount unit. */
  quantity: number;
  /** Required for `limit`; not allowed for `market` and `stop`. */
  price?: number;
  /** Required for `stop`: the trigger price. */
  stopPrice?: number;
  /** Only reduce an open position, never open or increase one. */
  reduceOnly?: boolean;
}

export interface ExchangeOrder {
  /** The exchange's id of the order. */
  exchangeOrderId: string;
  /** The client order id it was placed with, when the exchange reports it. */
  clientOrderId: string | null;
  symbol: string;
  side: ExchangeOrderSide;
  type: ExchangeOrderType;
  status: ExchangeOrderStatus;
  quantity: number;
  /** Limit price; null for market and stop orders. */
  price: number | null;
  stopPrice: number | null;
  reduceOnly: boolean;
  filledQuantity: number;
  /** Average fill price; null until something filled. */
  averagePrice: number | null;
  /** Fees paid so far, in `feeCurrency` (0 if unknown). */
  fee: number;
  feeCurrency: string | null;
  /** When the exchange accepted the order (ISO 8601), when known. */
  createdAt: string | null;
  /** Last change the exchange reports (ISO 8601), when known. */
  updatedAt: string | null;
}

export interface ExchangeMarket {
  symbol: string;
  base: string;
  quote: string;
  /** The margin and settlement currency of a derivative; null for spot. */
  settle: string | null;
  type: 'spot' | 'swap' | 'future' | 'option';
  /** True for USDT-margined (linear) derivatives, false for inverse, null for spot. */
  linear: boolean | null;
  /** Base units per contract for derivatives; null for spot. */
  contractSize: number | null;
  /** Smallest step of the amount and the price, as a number (e.g. 0.001), when known. */
  amountStep: number | null;
  priceStep: number | null;
  minQuantity: number | null;
  /** Smallest notional (quantity x price), when known. */
  minCost: number | null;
  active: boolean;
}

export interface ExchangeBalanceEntry {
  /** Available for new orders. */
  free: number;
  /** Held by open orders and positions. */
  used: number;
  total: number;
}

/** Balances by currency code (`USDT`, `BTC`, ...). Currencies with nothing in them may be left out. */
export type ExchangeBalance = Record<string, ExchangeBalanceEntry>;

export interface ExchangePosition {
  symbol: string;
  side: 'long' | 'short';
  /** > 0, in the market's amount unit. */
  quantity: number;
  entryPrice: number | null;
  markPrice: number | null;
  unrealizedPnl: number | null;
  leverage: number | null;
  liquidationPrice: number | null;
}

export interface ExchangeCandle {
  /** Open time, epoch milliseconds. */
  time: number;
  open: number;
  high: number;
  low: number;
  close: number;
  volume: number;
}

/** `one_way`: one net position per symbol (what deployments trade); `hedge`: a long and a short side at once. */
export type ExchangePositionMode = 'one_way' | 'hedge';
export type ExchangeMarginMode = 'isolated' | 'cross';

/**
 * One exchange account (one credential) for one market type. Every method may be called
 * concurrently; implementations serialize or rate-limit as the exchange needs.
 */
export interface ExchangeGateway {
  /** `paper`, or the ccxt exchange id (`binanceusdm`, `bybit`, ...). */
  readonly exchangeId: string;

  /** The markets of the account's market type, by symbol. Loaded once, then cached. */
  loadMarkets(): Promise<Record<string, ExchangeMarket>>;
  /** One market; `bad_symbol` (NOT_FOUND) if the exchange does not list it. */
  market(symbol: string): Promise<ExchangeMarket>;
  fetchBalance(): Promise<ExchangeBalance>;

  /**
   * Places an order. Idempotent by `clientOrderId`: a client order id already used never
   * creates a second order. When an attempt's outcome is unknown (timeout, dropped
   * connection), the implementation looks the order up by client order id before anything
   * else and returns it if found; it never sends the order again after an unknown outcome.
   * When it cannot learn the outcome it throws `unknown_outcome`. A rate-limit refusal is a
   * known "not placed" and is retried with backoff.
   * Returns the order as the exchange acknowledged it (possibly already filled).
   */
  createOrder(request: CreateOrderRequest): Promise<ExchangeOrder>;
  /**
   * The order placed with this client order id, or null if the exchange has none. This is how
   * a crash between sending and acknowledging is resolved. `type` (if known) lets an exchange
   * that keeps stop orders apart (Binance "algo" orders) look in the right place first.
   */
  fetchOrderByClientId(clientOrderId: string, symbol: string, hint?: { type?: ExchangeOrderType }): Promise<ExchangeOrder | null>;
  /** One order by the exchange's id; `order_not_found` (NOT_FOUND) if there is none. */
  fetchOrder(exchangeOrderId: string, symbol: string, hint?: { type?: ExchangeOrderType }): Promise<ExchangeOrder>;
  /**
   * Cancels an open order and returns it as cancelled. An order that is already filled or
   * cancelled is `order_not_found` or `invalid_order`, as the exchange reports.
   */
  cancelOrder(exchangeOrderId: string, symbol: string, hint?: { type?: ExchangeOrderType }): Promise<ExchangeOrder>;
  /** Open orders of one symbol, or of all symbols of the market type. */
  fetchOpenOrders(symbol?: string): Promise<ExchangeOrder[]>;
  /** Open positions of these symbols (none for spot); a flat symbol is left out. */
  fetchPositions(symbols: readonly string[]): Promise<ExchangePosition[]>;
  /**
   * Closed candles (never the one still forming), oldest first, opening at or after `since`
   * (epoch ms). Optional: a gateway without it relies on the MarketData port.
   */
  fetchClosedCandles?(symbol: string, timeframe: string, since: number, limit: number): Promise<ExchangeCandle[]>;
  /**
   * The account's private order stream, where the exchange has one (optional): resolves with the
   * orders that changed since the previous call (of any symbol, or of `symbol`), as soon as a
   * change arrives; rejects when the stream cannot connect or drops. A caller keeps calling it in
   * a loop, with REST (`fetchOrder`, `fetchOrderByClientId`) as the fallback while it fails. An
   * update may arrive both here and by REST: it is the order's whole state, so applying it twice
   * changes nothing.
   */
  watchOrders?(symbol?: string): Promise<ExchangeOrder[]>;

  /*
   * Account set-up, for the pre-flight checks a deployment runs before it starts
   * (`deployments/preflight.ts`). Each is optional: a gateway without one (the paper exchange,
   * an exchange ccxt has no such call for) has nothing to set up there, and the check says so.
   */

  /** LINEAR (USDT-margined perpetuals) or SPOT: the market type this gateway trades. */
  readonly marketType?: 'LINEAR' | 'SPOT';
  /** The exchange's clock (epoch ms), from a public request. */
  fetchServerTime?(): Promise<number>;
  /**
   * Measures the exchange's clock and signs every later request with it (ccxt's
   * `timeDifference`), so a local clock that is off no longer gets requests refused for their
   * timestamp. Returns the offset measured: exchange time minus local time, in ms.
   */
  syncClock?(): Promise<number>;
  /** The account's position mode for a derivatives symbol. */
  fetchPositionMode?(symbol: string): Promise<ExchangePositionMode>;
  /** Sets the position mode (the account's, on exchanges where it is not per symbol). Setting the mode it already has succeeds. */
  setPositionMode?(mode: ExchangePositionMode, symbol: string): Promise<void>;
  /** Sets the leverage of a derivatives symbol (a whole number >= 1). */
  setLeverage?(symbol: string, leverage: number): Promise<void>;
  /** Sets the margin mode of a derivatives symbol. Setting the mode it already has succeeds. */
  setMarginMode?(symbol: string, mode: ExchangeMarginMode): Promise<void>;
}

/** Why an exchange call failed; see the port's doc comment. */
export type ExchangeErrorReason =
  | 'unavailable'
  | 'unknown_outcome'
  | 'insufficient_funds'
  | 'invalid_order'
  | 'bad_symbol'
  | 'order_not_found'
  | 'authentication'
  | 'not_supported'
  | 'rejected';

const CODE_OF_REASON: Record<ExchangeErrorReason, ErrorCode> = {
  unavailable: 'UNAVAILABLE',
  unknown_outcome: 'UNAVAILABLE',
  insufficient_funds: 'CONFLICT',
  invalid_order: 'VALIDATION_FAILED',
  bad_symbol: 'NOT_FOUND',
  order_not_found: 'NOT_FOUND',
  authentication: 'FORBIDDEN',
  not_supported: 'NOT_IMPLEMENTED',
  rejected: 'CONFLICT',
};

/** `details` of an ExchangeGatewayError. */
export interface ExchangeErrorDetails {
  exchange: string;
  reason: ExchangeErrorReason;
  /** The client order id of the order concerned, if any. */
  clientOrderId?: string;
  /**
   * Set when the exchange asked this account to wait (429/418 with `Retry-After`) and the request
   * was not sent: when it may be sent again (ISO 8601). Such a refusal is `unavailable`, and is a
   * known "not sent", never an unknown outcome.
   */
  retryAt?: string;
}

/**
 * A failure of an exchange call: a `StratboxError` whose code follows from `reason` (see the
 * port's doc comment) and whose `details` are `{ exchange, reason, clientOrderId? }`.
 */
export class ExchangeGatewayError extends StratboxError {
  readonly reason: ExchangeErrorReason;
  readonly exchange: string;

  constructor(exchange: string, reason: ExchangeErrorReason, message: string, options?: { cause?: unknown; clientOrderId?: string; retryAt?: string }) {
    const details: ExchangeErrorDetails = {
      exchange,
      reason,
      ...(options?.clientOrderId === undefined ? {} : { clientOrderId: options.clientOrderId }),
      ...(options?.retryAt === undefined ? {} : { retryAt: options.retryAt }),
    };
    super(CODE_OF_REASON[reason], message, details, options?.cause === undefined ? undefined : { cause: options.cause });
    this.reason = reason;
    this.exchange = exchange;
  }

  /** When the exchange asked the account to wait and the request was not sent: the time it may be sent again (ISO 8601), else null. */
  get retryAt(): string | null {
    return (this.details as ExchangeErrorDetails).retryAt ?? null;
  }

  /** True for reasons worth trying again later (`unavailable`, `unknown_outcome`). */
  get transient(): boolean {
    return this.reason === 'unavailable' || this.reason === 'unknown_outcome';
  }
}

/** The reason of an ExchangeGatewayError, or null for anything else. */
export function exchangeErrorReason(error: unknown): ExchangeErrorReason | null {
  return error instanceof ExchangeGatewayError ? error.reason : null;
}

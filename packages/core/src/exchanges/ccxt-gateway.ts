import type { Order } from 'ccxt';
import { isStratboxError } from '../errors/stratbox-error.js';
import { createSystemClock, type Clock } from '../ports/clock.js';
import type { ExchangeBans } from '../ports/exchange-bans.js';
import {
  ExchangeGatewayError,
  type ExchangeMarginMode,
  type ExchangePositionMode,
  type CreateOrderRequest,
  type ExchangeBalance,
  type ExchangeCandle,
  type ExchangeGateway,
  type ExchangeMarket,
  type ExchangeOrder,
  type ExchangeOrderType,
  type ExchangePosition,
} from '../ports/exchange-gateway.js';
import type { Logger } from '../ports/logger.js';
import { asCcxt, type CcxtExchange } from './ccxt-exchange.js';
import { createBanGuard, watchCcxtBans, type BanGuard } from './ccxt-ban-watch.js';
import { classifyCcxtError, errorClassNames, isRetryable, toGatewayError } from './ccxt-errors.js';
import { toExchangeMarket, toExchangeOrder, toExchangePosition } from './ccxt-mapping.js';
import { checkOrderRequest } from './check-order-request.js';
import { ccxtOrderWatch } from './ccxt-order-watch.js';
import { withTradeFees } from './ccxt-trade-fees.js';
import { createCooldown, createRetryPolicy, type Cooldown, type RetryOptions } from './retry-policy.js';

/*
 * The ExchangeGateway on a ccxt exchange instance. ccxt is only a type import here: the
 * instance comes from the caller (usually `createExchangeClientPool`), so importing this file
 * does not load ccxt.
 */

export interface CcxtGatewayOptions {
  /**
   * A ccxt exchange instance with the account's keys, created with `enableRateLimit: true`.
   * Several gateways may share one instance (and so its rate limiter).
   */
  exchange: CcxtExchange;
  /** LINEAR: USDT-margined perpetual swaps (`BTC/USDT:USDT`); SPOT: spot markets (`BTC/USDT`). */
  marketType: 'LINEAR' | 'SPOT';
  /** Switches the instance to the exchange's testnet (`setSandboxMode(true)`) unless it already is. */
  testnet?: boolean;
  retry?: RetryOptions;
  /** Shared by all gateways of one instance so that a rate-limit answer pauses them all. Default: one of its own. */
  cooldown?: Cooldown;
  /** Decides which candles have closed. Default: the system clock. */
  clock?: Clock;
  logger?: Logger;
  /**
   * Where 429 and 418 answers (with their `Retry-After`) are kept for the account, shared by
   * every gateway and process trading on it. During a ban no order request is sent (create and
   * cancel fail at once with `unavailable`, naming the end of the ban); other requests wait out
   * a ban of up to `maxReadWaitMs` (default 30 s) and fail the same way during a longer one.
   */
  bans?: { store: ExchangeBans; accountKey: string; maxReadWaitMs?: number };
}

/** What became of a client order id this gateway sent. */
type SendOutcome = 'unknown' | 'acknowledged' | 'refused';
const MAX_REMEMBERED = 10_000;

/** Exchange-specific parameters the unified API needs (a small, explicit list). */
function quirksOf(exchangeId: string) {
  const bybit = exchangeId.startsWith('bybit');
  return {
    /** Bybit's fetchOrder refuses to run without acknowledging it only sees the last 500 orders. */
    fetchOrderParams: bybit ? { acknowledged: true } : {},
    /** Bybit's derivative trigger orders need the direction the price must move in. */
    triggerDirection: bybit,
    /**
     * Binance reads the client's default sub-type (`linear`, as the client pool sets it) before the
     * type: a spot call without a symbol (balance, time, open orders) would go to the futures API.
     * A sub-type that is neither linear nor inverse is dropped by ccxt and leaves the call on spot.
     */
    spotSubType: exchangeId.startsWith('binance'),
  };
}

/**
 * An ExchangeGateway on ccxt (see the port for the guarantees):
 * - client order ids travel as ccxt's unified `clientOrderId` param;
 * - network errors, timeouts and rate limits are retried with exponential backoff and jitter
 *   (`retry`), a rate-limit answer pausing every gateway sharing `cooldown`; exchange errors
 *   are not retried and become ExchangeGatewayErrors with a clear reason;
 * - createOrder never sends an order again once an attempt's outcome is unknown: it looks the
 *   order up by client order id (a few times, with backoff) and returns it, or throws
 *   `unknown_outcome` for the caller to resolve later with `fetchOrderByClientId`.
 */
export function createCcxtGateway(options: CcxtGatewayOptions): ExchangeGateway {
  const ex = asCcxt(options.exchange);
  const id = ex.id;
  const policy = createRetryPolicy(options.retry);
  const cooldown = options.cooldown ?? createCooldown(options.retry?.sleep ? { sleep: options.retry.sleep } : {});
  const clock = options.clock ?? createSystemClock();
  const quirks = quirksOf(id);
  const sent = new Map<string, SendOutcome>();
  let markets: Promise<Record<string, ExchangeMarket>> | undefined;
  let guard: BanGuard | null = null;
  if (options.bans) {
    const banGuard = createBanGuard({
      exchangeId: id,
      bans: options.bans.store,
      accountKey: options.bans.accountKey,
      ...(options.bans.maxReadWaitMs === undefined ? {} : { maxReadWaitMs: options.bans.maxReadWaitMs }),
      ...(options.retry?.sleep ? { sleep: options.retry.sleep } : {}),
    });
    guard = banGuard;
    watchCcxtBans(ex, (status, until) => banGuard.note(status, until));
  }

  if (options.testnet && !ex.isSandboxModeEnabled) ex.setSandboxMode(true);
  // Open orders of all symbols are asked for on purpose (reconciliation); ccxt warns otherwise.
  ex.options['warnOnFetchOpenOrdersWithoutSymbol'] = false;

  const wanted: Record<string, string> =
    options.marketType === 'LINEAR' ? { type: 'swap', subType: 'linear' } : { type: 'spot', ...(quirks.spotSubType ? { subType: 'spot' } : {}) };
  /** Params that keep a Binance order call on spot even with a spot symbol (see `spotSubType`); none elsewhere. */
  const orderParams: Record<string, string> = options.marketType === 'SPOT' && quirks.spotSubType ? { subType: 'spot' } : {};
  /** An order with fills but no fee (Binance's lookups carry none) gets the fee of its trades (ccxt-trade-fees.ts). */
  const withFees = (order: ExchangeOrder): Promise<ExchangeOrder> => withTradeFees(ex, order);
  /** Market-type params for calls without a symbol, only when the instance's default differs. */
  const typeParams = (): Record<string, string> => {
    // On Binance a default sub-type leaks into spot calls even when the default type is spot.
    const subTypeLeaks = orderParams['subType'] !== undefined && ex.options['defaultSubType'] !== undefined;
    return ex.options['defaultType'] === wanted['type'] && !subTypeLeaks ? {} : { ...wanted };
  };

  /** Values never to show in an error message. */
  const secrets = () => [ex.apiKey, ex.secret, ex.password, ex.uid, ex.privateKey, ex.token].filter((s): s is string => typeof s === 'string' && s.length > 0);

  const remember = (clientOrderId: string, outcome: SendOutcome) => {
    sent.delete(clientOrderId);
    sent.set(clientOrderId, outcome);
    if (sent.size > MAX_REMEMBERED) sent.delete(sent.keys().next().value!);
  };

  const fail = (error: unknown, clientOrderId?: string): ExchangeGatewayError | Error => {
    if (isStratboxError(error)) return error;
    const kind = classifyCcxtError(error);
    const reason = kind.kind === 'final' ? kind.reason : kind.kind === 'duplicate' ? 'invalid_order' : 'unavailable';
    return toGatewayError(id, reason, error, secrets(), clientOrderId);
  };

  /** Waits out the shared cool-down, then after a rate-limit answer extends it for everyone. */
  async function pauseAfter(kind: ReturnType<typeof classifyCcxtError>, attempt: number) {
    const delay = policy.delayMs(attempt);
    if (kind.kind === 'rate_limited') cooldown.extend(delay);
    else await policy.sleep(delay);
    await cooldown.wait();
  }

  /**
   * Runs a read (or an idempotent write such as cancel: `order`), retrying transient failures.
   * During a ban, an order request fails at once and a read waits it out (see `bans`).
   */
  async function call<T>(what: string, fn: () => Promise<T>, kind: 'read' | 'order' = 'read'): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      if (kind === 'order') await guard?.beforeOrder(what);
      else await guard?.beforeRead(what);
      await cooldown.wait();
      try {
        return await fn();
      } catch (error) {
        if (isStratboxError(error)) throw error;
        const kind = classifyCcxtError(error);
        if (!isRetryable(kind) || attempt >= policy.maxAttempts) throw fail(error);
        options.logger?.warn('Exchange call failed; retrying', { exchange: id, call: what, attempt, error: error instanceof Error ? error.name : 'Error' });
        await pauseAfter(kind, attempt);
      }
    }
  }

  function loadMarkets(): Promise<Record<string, ExchangeMarket>> {
    markets ??= call('loadMarkets', () => ex.loadMarkets()).then((all) => {
      const result: Record<string, ExchangeMarket> = {};
      for (const m of Object.values(all)) {
        if (!m) continue;
        const fits = options.marketType === 'LINEAR' ? m.swap === true && m.linear === true : m.spot === true;
        if (fits) result[m.symbol] = toExchangeMarket(m, ex.precisionMode ?? 4);
      }
      return result;
    });
    markets.catch(() => (markets = undefined));
    return markets;
  }

  async function market(symbol: string): Promise<ExchangeMarket> {
    const found = (await loadMarkets())[symbol];
    if (!found) throw new ExchangeGatewayError(id, 'bad_symbol', `${id} does not list ${symbol} as a ${options.marketType} market`);
    return found;
  }

  /** One lookup by client order id: the regular order book, then (or first, for stops) trigger orders; a scan where lookup is not supported. */
  async function lookupOnce(clientOrderId: string, symbol: string, type?: ExchangeOrderType): Promise<ExchangeOrder | null> {
    const plain = {};
    const trigger = { trigger: true };
    const variants = type === 'stop' ? [trigger, plain] : type === undefined ? [plain, trigger] : [plain];
    let unsupported = false;
    for (const variant of variants) {
      try {
        const order = await ex.fetchOrderWithClientOrderId(clientOrderId, symbol, { ...quirks.fetchOrderParams, ...orderParams, ...variant });
        if (order && (order.clientOrderId == null || order.clientOrderId === clientOrderId)) return withFees(toExchangeOrder(order));
      } catch (error) {
        const kind = classifyCcxtError(error);
        if (kind.kind !== 'final') throw error;
        if (kind.reason === 'order_not_found') continue;
        if (kind.reason === 'not_supported' || kind.reason === 'invalid_order') {
          unsupported = true;
          continue;
        }
        throw error;
      }
    }
    return unsupported ? scan(clientOrderId, symbol) : null;
  }

  /** Finds an order by client order id among open and recent closed orders, for exchanges that cannot look it up directly. */
  async function scan(clientOrderId: string, symbol: string): Promise<ExchangeOrder | null> {
    const lists: Order[][] = [await ex.fetchOpenOrders(symbol, undefined, undefined, orderParams)];
    if (ex.has['fetchClosedOrders']) lists.push(await ex.fetchClosedOrders(symbol, undefined, undefined, orderParams));
    else if (ex.has['fetchOrders']) lists.push(await ex.fetchOrders(symbol, undefined, undefined, orderParams));
    for (const list of lists) {
      const found = list.find((o) => o.clientOrderId === clientOrderId);
      if (found) return withFees(toExchangeOrder(found));
    }
    return null;
  }

  /**
   * After an unknown outcome: looks the order up a few times with backoff (it may show up late)
   * and returns it, or null if it never appeared. Never sends it.
   */
  async function resolveUnknown(request: CreateOrderRequest): Promise<ExchangeOrder | null> {
    for (let attempt = 1; attempt <= policy.maxAttempts; attempt++) {
      await guard?.beforeRead('the order lookup');
      await cooldown.wait();
      try {
        const found = await lookupOnce(request.clientOrderId, request.symbol, request.type);
        if (found) return found;
        if (attempt < policy.maxAttempts) await policy.sleep(policy.delayMs(attempt));
      } catch (error) {
        const kind = classifyCcxtError(error);
        if (!isRetryable(kind)) return null;
        if (attempt < policy.maxAttempts) await pauseAfter(kind, attempt);
      }
    }
    return null;
  }

  /** ccxt's createOrder arguments for a request. */
  function ccxtOrder(request: CreateOrderRequest) {
    const params: Record<string, unknown> = { clientOrderId: request.clientOrderId };
    if (request.reduceOnly) params['reduceOnly'] = true;
    if (request.type === 'stop') {
      params['triggerPrice'] = request.stopPrice;
      if (quirks.triggerDirection && options.marketType === 'LINEAR') params['triggerDirection'] = request.side === 'buy' ? 'above' : 'below';
    }
    const type = request.type === 'limit' ? 'limit' : 'market';
    return { type, price: request.type === 'limit' ? request.price : undefined, params };
  }

  async function createOrder(request: CreateOrderRequest): Promise<ExchangeOrder> {
    checkOrderRequest(id, options.marketType, request);
    const { clientOrderId } = request;
    const before = sent.get(clientOrderId);
    if (before !== undefined) {
      // Placed (or tried) before: the order may exist. Look first; send again only if the last try was refused.
      const found = await resolveUnknown(request);
      if (found) return found;
      if (before !== 'refused') {
        throw new ExchangeGatewayError(id, 'unknown_outcome', `${id}: order ${clientOrderId} was sent before and cannot be found; not sending it again`, {
          clientOrderId,
        });
      }
    }
    await market(request.symbol);
    const { type, price, params } = ccxtOrder(request);
    for (let attempt = 1; ; attempt++) {
      await guard?.beforeOrder(`order ${clientOrderId}`);
      await cooldown.wait();
      remember(clientOrderId, 'unknown');
      try {
        const order = await ex.createOrder(request.symbol, type, request.side, request.quantity, price, params);
        remember(clientOrderId, 'acknowledged');
        // Filled at once (a market order): its fee, when the answer has none, from its trades.
        return withFees(toExchangeOrder(order, request));
      } catch (error) {
        const kind = classifyCcxtError(error);
        if (kind.kind === 'rate_limited' || kind.kind === 'refused_transient') {
          // Refused before it was acted on: safe to send again.
          remember(clientOrderId, 'refused');
          if (attempt >= policy.maxAttempts) throw fail(error, clientOrderId);
          options.logger?.warn('Exchange refused an order for now; retrying', {
            exchange: id,
            clientOrderId,
            attempt,
            error: error instanceof Error ? error.name : 'Error',
          });
          await pauseAfter(kind, attempt);
          continue;
        }
        if (kind.kind === 'unknown' || kind.kind === 'duplicate') {
          options.logger?.warn('Order outcome unknown; looking it up by client order id', {
            exchange: id,
            clientOrderId,
            error: error instanceof Error ? error.name : 'Error',
          });
          const found = await resolveUnknown(request);
          if (found) {
            remember(clientOrderId, 'acknowledged');
            return found;
          }
          throw new ExchangeGatewayError(
            id,
            'unknown_outcome',
            `${id} did not confirm order ${clientOrderId} and it cannot be found yet; resolve it later by its client order id`,
            {
              clientOrderId,
              cause: fail(error, clientOrderId),
            },
          );
        }
        remember(clientOrderId, 'refused');
        throw fail(error, clientOrderId);
      }
    }
  }

  const linear = options.marketType === 'LINEAR';
  /** Account set-up of derivatives accounts (see the port), where ccxt has the call for this exchange. */
  const setup = {
    ...(ex.has['fetchTime']
      ? {
          fetchServerTime: () => call('fetchTime', async () => Number(await ex.fetchTime(typeParams()))),
          async syncClock(): Promise<number> {
            ex.options['adjustForTimeDifference'] = true;
            const localMinusServer = await call('loadTimeDifference', () => ex.loadTimeDifference(typeParams()));
            return -Number(localMinusServer);
          },
        }
      : {}),
    ...(linear && ex.has['fetchPositionMode']
      ? {
          async fetchPositionMode(symbol: string): Promise<ExchangePositionMode> {
            const mode = await call('fetchPositionMode', () => ex.fetchPositionMode(symbol));
            return mode.hedged ? 'hedge' : 'one_way';
          },
        }
      : {}),
    ...(linear && ex.has['setPositionMode'] && ex.has['fetchPositionMode']
      ? {
          async setPositionMode(mode: ExchangePositionMode, symbol: string): Promise<void> {
            try {
              await call('setPositionMode', () => ex.setPositionMode(mode === 'hedge', symbol));
            } catch (error) {
              // "No need to change": some exchanges refuse to set the mode the account has.
              const now = await call('fetchPositionMode', () => ex.fetchPositionMode(symbol)).catch(() => null);
              if (now && (now.hedged ? 'hedge' : 'one_way') === mode) return;
              throw error;
            }
          },
        }
      : {}),
    ...(linear && ex.has['setLeverage']
      ? {
          async setLeverage(symbol: string, leverage: number): Promise<void> {
            await call('setLeverage', () => ex.setLeverage(leverage, symbol));
          },
        }
      : {}),
    ...(linear && ex.has['setMarginMode']
      ? {
          async setMarginMode(symbol: string, mode: ExchangeMarginMode): Promise<void> {
            await call('setMarginMode', () =>
              ex.setMarginMode(mode, symbol).catch((error: unknown) => {
                if (errorClassNames(error).has('MarginModeAlreadySet')) return null;
                throw error;
              }),
            );
          },
        }
      : {}),
  };

  // The private order stream, where the instance is a ccxt pro class that has one (ccxt-order-watch.ts).
  const watchOrders = ccxtOrderWatch(ex);

  return {
    exchangeId: id,
    marketType: options.marketType,
    ...(watchOrders ? { watchOrders } : {}),
    ...setup,
    loadMarkets,
    market,

    async fetchBalance(): Promise<ExchangeBalance> {
      const balance = await call('fetchBalance', () => ex.fetchBalance(typeParams()));
      const result: ExchangeBalance = {};
      const totals = (balance.total ?? {}) as unknown as Record<string, unknown>;
      for (const currency of Object.keys(totals)) {
        const entry = balance[currency] as { free?: unknown; used?: unknown; total?: unknown } | undefined;
        const total = Number(entry?.total ?? totals[currency]);
        if (!Number.isFinite(total)) continue;
        const free = Number(entry?.free);
        const used = Number(entry?.used);
        result[currency] = {
          total,
          free: Number.isFinite(free) ? free : Math.max(0, total - (Number.isFinite(used) ? used : 0)),
          used: Number.isFinite(used) ? used : Math.max(0, total - (Number.isFinite(free) ? free : total)),
        };
      }
      return result;
    },

    createOrder,

    async fetchOrderByClientId(clientOrderId, symbol, hint) {
      await market(symbol);
      return call('fetchOrderByClientId', () => lookupOnce(clientOrderId, symbol, hint?.type));
    },

    async fetchOrder(exchangeOrderId, symbol, hint) {
      const params = { ...quirks.fetchOrderParams, ...orderParams, ...(hint?.type === 'stop' ? { trigger: true } : {}) };
      return call('fetchOrder', async () => withFees(toExchangeOrder(await ex.fetchOrder(exchangeOrderId, symbol, params))));
    },

    async cancelOrder(exchangeOrderId, symbol, hint) {
      const params = { ...orderParams, ...(hint?.type === 'stop' ? { trigger: true } : {}) };
      const order = await call('cancelOrder', () => ex.cancelOrder(exchangeOrderId, symbol, params), 'order');
      const mapped = await withFees(toExchangeOrder(order as Order));
      // Some exchanges answer a cancel with the id only: report what was asked.
      return {
        ...mapped,
        exchangeOrderId: mapped.exchangeOrderId || exchangeOrderId,
        symbol: mapped.symbol || symbol,
        status: order.status ? mapped.status : 'cancelled',
      };
    },

    async fetchOpenOrders(symbol) {
      const orders = await call('fetchOpenOrders', () =>
        symbol === undefined
          ? ex.fetchOpenOrders(undefined, undefined, undefined, typeParams())
          : ex.fetchOpenOrders(symbol, undefined, undefined, orderParams),
      );
      return orders.map((o) => toExchangeOrder(o));
    },

    async fetchPositions(symbols): Promise<ExchangePosition[]> {
      if (options.marketType === 'SPOT' || symbols.length === 0) return [];
      const positions = await call('fetchPositions', () => ex.fetchPositions([...symbols], typeParams()));
      const wantedSymbols = new Set(symbols);
      return positions.map(toExchangePosition).filter((p): p is ExchangePosition => p !== null && wantedSymbols.has(p.symbol));
    },

    async fetchClosedCandles(symbol, timeframe, since, limit): Promise<ExchangeCandle[]> {
      const stepMs = ex.parseTimeframe(timeframe) * 1000;
      const rows = await call('fetchOHLCV', () => ex.fetchOHLCV(symbol, timeframe, since, limit + 1));
      const now = clock.now().getTime();
      const candles: ExchangeCandle[] = [];
      for (const [time, open, high, low, close, volume] of rows) {
        if (typeof time !== 'number' || time < since || time + stepMs > now) continue;
        candles.push({ time, open: Number(open), high: Number(high), low: Number(low), close: Number(close), volume: Number(volume ?? 0) });
      }
      return candles.slice(0, limit);
    },
  };
}

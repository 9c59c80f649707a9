import { parseMarketSymbol } from '../exchanges/market-symbol.js';
import { listDeploymentOrders } from './deployment-orders.js';
import { ExchangeGatewayError, type CreateOrderRequest, type ExchangeGateway, type ExchangeOrder, type ExchangePosition } from '../ports/exchange-gateway.js';
import type { DeploymentRecord, OrderRecord, Store } from '../ports/store.js';
import { exitQuantity } from './exit-quantity.js';

/*
 * A spot deployment's position: a spot account has balances, not positions, so the position of
 * `BASE/QUOTE` is derived here, for one deployment, from its own fills and the account:
 *
 *   own = (base bought - base sold - fees paid in the base asset), by the deployment's own orders
 *   position = min(own, the account's total base balance), a long; none when it is dust
 *
 * So base the deployment did not buy (the owner's other holdings, another bot's) is never its
 * position, and never sold by its closes, its stop or a halt's flatten. The gateway itself
 * cannot know this: one gateway serves every deployment on a credential.
 *
 * Fee currency: the Store keeps an order's fee but not its currency. A fee this view saw in an
 * exchange answer (the order POST's answer lists the fills' fees on Binance) counts by its
 * currency; an order it has not seen (filled before this process started) counts its fee as paid
 * in the base asset when the fee is at most 1 % of the quantity, else as quote. That guess can
 * only err towards a smaller position (dust left unsold), never towards selling coins the
 * deployment did not buy.
 */

/** Largest fee rate (of the quantity) read as a base-asset fee when the fee's currency is unknown. */
const BASE_FEE_GUESS_RATE = 0.01;

const isSpot = (symbol: string) => parseMarketSymbol(symbol)?.marketType === 'SPOT';

interface SeenFee {
  fee: number;
  currency: string | null;
}

export interface SpotHolding {
  /** What the deployment's own fills leave it, capped by the account's total base balance. */
  quantity: number;
  /** Average cost of the fills that built it (null when unknown). */
  entryPrice: number | null;
}

/** The deployment's orders with a fill on `symbol`, oldest change first (as realized P&L counts them). */
async function filledOrders(store: Store, deployment: DeploymentRecord, symbol: string): Promise<OrderRecord[]> {
  const all = (await listDeploymentOrders(store, deployment.userId, deployment.id)).filter((o) => o.symbol === symbol && o.filledQuantity > 0);
  // Oldest first (pages come newest first), kept for equal times by the stable sort.
  return all.reverse().sort((a, b) => (a.updatedAt === b.updatedAt ? a.createdAt.localeCompare(b.createdAt) : a.updatedAt.localeCompare(b.updatedAt)));
}

/**
 * The base the deployment's own fills leave it (less fees taken in the base asset), with their
 * average cost. `seen` gives the fee currency of orders whose exchange answer was seen.
 */
export function ownSpotQuantity(orders: readonly OrderRecord[], base: string, seen: ReadonlyMap<string, SeenFee> = new Map()): SpotHolding {
  // The quantity is a plain sum (fills at the same instant may come in any order); the cost follows the fills in turn.
  let net = 0;
  let running = 0;
  let cost = 0;
  for (const o of orders) {
    const known = seen.get(o.clientOrderId);
    const baseFee = known ? (known.currency === base ? known.fee : 0) : o.fee > 0 && o.fee <= o.filledQuantity * BASE_FEE_GUESS_RATE ? o.fee : 0;
    const delta = o.side === 'buy' ? o.filledQuantity - baseFee : -(o.filledQuantity + baseFee);
    net += delta;
    if (delta > 0) cost += o.filledQuantity * (o.averagePrice ?? 0);
    else cost = running > 0 ? cost * Math.max(0, 1 + delta / running) : 0;
    running = Math.max(0, running + delta);
    if (running === 0) cost = 0;
  }
  const quantity = Math.max(0, Number(net.toFixed(12)));
  return { quantity, entryPrice: quantity > 0 && cost > 0 && running > 0 ? cost / running : null };
}

/** What a spot deployment's own fills leave it, and what the account holds of the base. */
export interface SpotAccount {
  base: string;
  own: number;
  total: number;
}

const accounts = new WeakMap<ExchangeGateway, (symbol: string) => Promise<SpotAccount>>();

/**
 * For reconciliation: the deployment's own base and the account's total of `symbol`, through the
 * gateway `deploymentSpotGateway` made; null for any other gateway or a derivatives symbol.
 */
export async function spotAccountOf(gateway: ExchangeGateway, symbol: string): Promise<SpotAccount | null> {
  const read = isSpot(symbol) ? accounts.get(gateway) : undefined;
  return read ? read(symbol) : null;
}

/**
 * The gateway a spot deployment trades through: the account's gateway with a position per spot
 * symbol that only counts what the deployment bought (above), and a guard on every spot sell.
 * Guarantees:
 * - `fetchPositions` lists a long per spot symbol whose own holding can be sold (at least the
 *   market's amount step, minimum quantity and, at its entry price, minimum notional); a smaller
 *   one is dust, not a position (a strategy that closes when it has a position does not retry it);
 *   derivatives symbols are the gateway's;
 * - a spot sell larger than the deployment's own holding, less its other open sells, is refused
 *   (`invalid_order`) before it leaves: it would sell coins the deployment did not buy. Spot has no reduce-only flag: an exit
 *   (`reduceOnly`) goes out as a plain sell under that cap.
 */
export function deploymentSpotGateway(gateway: ExchangeGateway, deps: { store: Store; deployment: DeploymentRecord }): ExchangeGateway {
  const { store, deployment } = deps;
  const seen = new Map<string, SeenFee>();
  const remember = (o: ExchangeOrder) => {
    if (o.clientOrderId && o.feeCurrency !== null && o.fee > 0) seen.set(o.clientOrderId, { fee: o.fee, currency: o.feeCurrency });
    return o;
  };

  async function account(symbol: string): Promise<SpotAccount & { entryPrice: number | null }> {
    const market = await gateway.market(symbol);
    const [orders, balance] = await Promise.all([filledOrders(store, deployment, symbol), gateway.fetchBalance()]);
    const own = ownSpotQuantity(orders, market.base, seen);
    return { base: market.base, own: own.quantity, total: balance[market.base]?.total ?? 0, entryPrice: own.entryPrice };
  }

  async function holding(symbol: string): Promise<SpotHolding & { base: string }> {
    const a = await account(symbol);
    return { quantity: Math.min(a.own, a.total), entryPrice: a.entryPrice, base: a.base };
  }

  const wrapped: ExchangeGateway = {
    ...gateway,

    async fetchPositions(symbols): Promise<ExchangePosition[]> {
      const spot = symbols.filter(isSpot);
      const others = symbols.filter((s) => !isSpot(s));
      const positions = others.length > 0 ? await gateway.fetchPositions(others) : [];
      for (const symbol of spot) {
        const own = await holding(symbol);
        const market = await gateway.market(symbol);
        if (exitQuantity(own.quantity, null, market, own.entryPrice).quantity === 0) continue;
        positions.push({
          symbol,
          side: 'long',
          quantity: own.quantity,
          entryPrice: own.entryPrice,
          markPrice: null,
          unrealizedPnl: null,
          leverage: null,
          liquidationPrice: null,
        });
      }
      return positions;
    },

    async createOrder(request: CreateOrderRequest): Promise<ExchangeOrder> {
      if (!isSpot(request.symbol) || request.side !== 'sell') return remember(await gateway.createOrder(request));
      const own = await holding(request.symbol);
      // Its other open sells (a resting take-profit) already spend part of it; this one is written (pending) before it is sent.
      const resting = (await store.orders.listOpen(deployment.id))
        .filter((o) => o.symbol === request.symbol && o.side === 'sell' && o.clientOrderId !== request.clientOrderId)
        .reduce((sum, o) => sum + (o.quantity - o.filledQuantity), 0);
      const available = Number(Math.max(0, own.quantity - resting).toFixed(12));
      if (request.quantity > available + 1e-12) {
        const spent = resting > 0 ? ` (${Number(resting.toFixed(12))} of it in open sells)` : '';
        throw new ExchangeGatewayError(
          gateway.exchangeId,
          'invalid_order',
          `Not selling ${request.quantity} ${own.base}: this deployment's own fills leave it ${own.quantity} ${own.base}${spent}, and it never sells coins it did not buy`,
          { clientOrderId: request.clientOrderId },
        );
      }
      const { reduceOnly: _exit, ...plain } = request;
      return remember(await gateway.createOrder(plain));
    },

    async fetchOrder(exchangeOrderId, symbol, hint) {
      return remember(await gateway.fetchOrder(exchangeOrderId, symbol, hint));
    },

    async fetchOrderByClientId(clientOrderId, symbol, hint) {
      const found = await gateway.fetchOrderByClientId(clientOrderId, symbol, hint);
      return found ? remember(found) : null;
    },

    ...(gateway.watchOrders
      ? {
          async watchOrders(symbol?: string) {
            return (await gateway.watchOrders!(symbol)).map(remember);
          },
        }
      : {}),
  };
  accounts.set(wrapped, account);
  return wrapped;
}

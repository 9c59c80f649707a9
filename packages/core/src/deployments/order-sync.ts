import { deploymentOrdersChannel } from '@stratbox/contract';
import type { OrderPlacement } from '../exchanges/order-placement.js';
import type { Clock } from '../ports/clock.js';
import type { EventBus } from '../ports/event-bus.js';
import { ExchangeGatewayError, type ExchangeGateway, type ExchangeOrder, type ExchangePosition } from '../ports/exchange-gateway.js';
import { OPEN_ORDER_STATUSES, type DeploymentRecord, type OrderRecord, type Store } from '../ports/store.js';
import { parseMarketSymbol } from '../exchanges/market-symbol.js';
import type { DeploymentLogWriter } from './deployment-log.js';
import { toOrderView } from './deployment-views.js';
import { exitQuantity } from './exit-quantity.js';

/*
 * What the runner and the stop path share about a deployment's orders: publishing every change
 * on `deployment:<id>:orders`, bringing open orders up to date from the exchange (never
 * re-sending one), cancelling open orders and closing positions with reduce-only market orders.
 */

export const FINAL_ORDER_STATUSES = ['filled', 'cancelled', 'rejected'] as const;

export function isFinal(order: OrderRecord): boolean {
  return (FINAL_ORDER_STATUSES as readonly string[]).includes(order.status);
}

export function isOpen(order: OrderRecord): boolean {
  return (OPEN_ORDER_STATUSES as readonly string[]).includes(order.status);
}

/** True when the exchange's report changed something the user sees. */
export function orderChanged(before: OrderRecord, after: OrderRecord): boolean {
  return (
    before.status !== after.status ||
    before.filledQuantity !== after.filledQuantity ||
    before.exchangeOrderId !== after.exchangeOrderId ||
    before.fee !== after.fee
  );
}

export function describeOrder(o: OrderRecord): string {
  const price = o.type === 'limit' ? ` at ${o.price}` : o.type === 'stop' ? ` stop ${o.stopPrice}` : '';
  return `${o.side} ${o.quantity} ${o.symbol} ${o.type}${price}${o.reduceOnly ? ' reduce-only' : ''} (${o.id})`;
}

export interface OrderSyncDeps {
  store: Store;
  clock: Clock;
  events: EventBus;
  placement: OrderPlacement;
  log: DeploymentLogWriter;
}

export type OrderSync = ReturnType<typeof createOrderSync>;

export function createOrderSync(deps: OrderSyncDeps) {
  const { store, events, placement, log } = deps;

  function publish(deployment: Pick<DeploymentRecord, 'id'>, order: OrderRecord) {
    events.publish(deploymentOrdersChannel(deployment.id), { deploymentId: deployment.id, order: toOrderView(order) });
  }

  /** Logs and publishes the change from `before` to `after`, if any. */
  async function report(deployment: DeploymentRecord, before: OrderRecord | null, after: OrderRecord) {
    if (before && !orderChanged(before, after)) return;
    publish(deployment, after);
    if (after.status === 'filled') {
      await log.write(deployment, 'info', `Order filled: ${describeOrder(after)}, ${after.filledQuantity} at ${after.averagePrice}, fee ${after.fee}`);
    } else if (after.status === 'cancelled' || after.status === 'rejected') {
      await log.write(deployment, after.status === 'rejected' ? 'warn' : 'info', `Order ${after.status}: ${describeOrder(after)}`);
    } else if (after.status === 'partially_filled') {
      await log.write(deployment, 'info', `Order partially filled: ${describeOrder(after)}, ${after.filledQuantity} so far`);
    }
  }

  /** Brings one open order up to date from the exchange (by client order id while pending; never sent again). */
  async function reconcile(deployment: DeploymentRecord, gateway: ExchangeGateway, order: OrderRecord): Promise<OrderRecord> {
    const after = await placement.reconcile(gateway, order);
    await report(deployment, order, after);
    return after;
  }

  /**
   * Applies an update of the private order stream (order-stream.ts) to the deployment's order it
   * names by client order id, through the same recording as a REST answer. Idempotent: the update
   * is the order's whole state, a final status is never overwritten (compare-and-set on the open
   * statuses), and one that has filled less than the Store already holds (older than a REST
   * answer applied meanwhile) is ignored. Returns the order after, or null when it is not the
   * deployment's open order or was ignored.
   */
  async function applySeen(deployment: DeploymentRecord, seen: ExchangeOrder): Promise<OrderRecord | null> {
    if (!seen.clientOrderId) return null;
    const order = await store.orders.findByClientOrderId(seen.clientOrderId);
    if (!order || order.deploymentId !== deployment.id || !isOpen(order)) return null;
    if (seen.filledQuantity < order.filledQuantity) return null;
    const after = await placement.record(order, seen);
    await report(deployment, order, after);
    return after;
  }

  /** Cancels one open order on the exchange and records the outcome (it may have filled meanwhile). */
  async function cancel(deployment: DeploymentRecord, gateway: ExchangeGateway, order: OrderRecord): Promise<OrderRecord> {
    let current = order;
    if (current.status === 'pending' || current.exchangeOrderId === null) {
      current = await reconcile(deployment, gateway, current);
      if (!isOpen(current) || current.exchangeOrderId === null) return current;
    }
    try {
      const seen = await gateway.cancelOrder(current.exchangeOrderId!, current.symbol, { type: current.type });
      const after = await placement.record(current, seen);
      await report(deployment, current, after);
      return after;
    } catch (error) {
      // Already filled or cancelled on the exchange: learn which.
      if (error instanceof ExchangeGatewayError && (error.reason === 'order_not_found' || error.reason === 'invalid_order'))
        return reconcile(deployment, gateway, current);
      throw error;
    }
  }

  /** Cancels every open order of the deployment; returns how many are still open (pending ones the exchange never saw). */
  async function cancelAll(deployment: DeploymentRecord, gateway: ExchangeGateway): Promise<number> {
    let left = 0;
    for (const order of await store.orders.listOpen(deployment.id)) {
      const after = await cancel(deployment, gateway, order);
      if (isOpen(after)) left++;
    }
    return left;
  }

  /**
   * Closes every open position of the deployment's symbols with reduce-only market orders, written
   * before they are sent. A spot position (spot-positions.ts: what the deployment's own fills
   * leave it) is sold as `min(position, free base)` rounded down to the market's step, a plain
   * sell (spot has no reduce-only); what cannot be sold is logged as dust and left.
   */
  async function closePositions(deployment: DeploymentRecord, gateway: ExchangeGateway): Promise<OrderRecord[]> {
    const positions: ExchangePosition[] = await gateway.fetchPositions(deployment.symbols);
    const placed: OrderRecord[] = [];
    for (const p of positions) {
      if (!(p.quantity > 0)) continue;
      const quantity = await spotExitQuantity(gateway, p);
      if (quantity.dust) await log.write(deployment, 'warn', `Dust left in ${p.symbol}: ${quantity.dust}`);
      if (!(quantity.quantity > 0)) continue;
      const order = await placement.place(gateway, {
        userId: deployment.userId,
        deploymentId: deployment.id,
        symbol: p.symbol,
        side: p.side === 'long' ? 'sell' : 'buy',
        type: 'market',
        quantity: quantity.quantity,
        reduceOnly: true,
      });
      await log.write(deployment, 'info', `Closing position: ${describeOrder(order)}`);
      await report(deployment, null, order);
      let current = order;
      for (let attempt = 0; attempt < 5 && isOpen(current); attempt++) current = await reconcile(deployment, gateway, current);
      placed.push(current);
    }
    return placed;
  }

  return { publish, report, reconcile, applySeen, cancel, cancelAll, closePositions };
}

/** The exit of a position: a derivatives position as the exchange reports it; a spot one as exit-quantity.ts sizes it, with the dust it leaves. */
async function spotExitQuantity(gateway: ExchangeGateway, p: ExchangePosition): Promise<{ quantity: number; dust: string | null }> {
  if (parseMarketSymbol(p.symbol)?.marketType !== 'SPOT') return { quantity: p.quantity, dust: null };
  const market = await gateway.market(p.symbol);
  const free = (await gateway.fetchBalance())[market.base]?.free ?? 0;
  const exit = exitQuantity(p.quantity, free, market, p.markPrice ?? p.entryPrice);
  const dust =
    exit.quantity === 0
      ? `${exit.dust} cannot be sold (${exit.reason}); left`
      : exit.dust > 0
        ? `${exit.dust} stays after this close (below the amount step)`
        : null;
  return { quantity: exit.quantity, dust };
}

import type { OrderPlacement } from '../exchanges/order-placement.js';
import type { Clock } from '../ports/clock.js';
import type { ExchangeGateway } from '../ports/exchange-gateway.js';
import type { DeploymentRecord, OrderRecord, Store } from '../ports/store.js';
import type { DeploymentLogWriter } from './deployment-log.js';
import { exitQuantity } from './exit-quantity.js';
import { describeOrder, isOpen, type OrderSync } from './order-sync.js';
import type { ReconciliationMismatch } from './reconciler.js';

/*
 * Exits a live deployment sends on its own: the size of a close (exit-quantity.ts: never more
 * than the account holds, rounded down to the market's step, dust recorded once per close
 * rather than sent and refused again and again), and the close that replaces a protective stop
 * the exchange refused (a position must not stay open without the stop the strategy asked for).
 */

export interface ProtectiveExitDeps {
  store: Store;
  clock: Clock;
  log: DeploymentLogWriter;
  sync: OrderSync;
  placement: OrderPlacement;
  /** Notes a mismatch on the reconciliation report (the runner's reconciler). */
  note(deployment: DeploymentRecord, mismatch: ReconciliationMismatch): Promise<void>;
}

export interface ProtectiveExits {
  /**
   * The quantity that closes `position` of `symbol`, or null when nothing can be sent (it is
   * dust: logged and noted on the reconciliation report).
   */
  size(deployment: DeploymentRecord, gateway: ExchangeGateway, symbol: string, position: number, price: number | null): Promise<number | null>;
  /**
   * After the exchange refused a reduce-only stop order: closes the position of its symbol with a
   * reduce-only market order (written before it is sent), logs why, and returns that order (null
   * when there was no position, or only dust).
   */
  closeAfterRefusedStop(deployment: DeploymentRecord, gateway: ExchangeGateway, stop: OrderRecord, why: string): Promise<OrderRecord | null>;
}

export function createProtectiveExits(deps: ProtectiveExitDeps): ProtectiveExits {
  const { clock, log, sync, placement, note } = deps;

  async function size(deployment: DeploymentRecord, gateway: ExchangeGateway, symbol: string, position: number, price: number | null) {
    const market = await gateway.market(symbol).catch(() => null);
    // A derivatives position is what may be closed; a spot one is limited by the free base balance.
    const free = symbol.includes(':') || !market ? null : ((await gateway.fetchBalance())[market.base]?.free ?? 0);
    const exit = exitQuantity(position, free, market, price);
    // A spot exit rounded down to the step leaves the rest behind: recorded once, at this exit.
    const message =
      exit.quantity === 0
        ? `Dust left in ${symbol}: ${exit.dust} cannot be sold (${exit.reason}); recorded, not retried`
        : free !== null && exit.dust > 0
          ? `Dust left in ${symbol}: ${exit.dust} stays after selling ${exit.quantity} (below the amount step ${market?.amountStep}); recorded, not retried`
          : null;
    if (message) {
      await log.write(deployment, 'warn', message);
      await note(deployment, { kind: 'balance', symbol, orderId: null, message, at: clock.now().toISOString() });
    }
    return exit.quantity > 0 ? exit.quantity : null;
  }

  return {
    size,
    async closeAfterRefusedStop(deployment, gateway, stop, why) {
      const position = (await gateway.fetchPositions([stop.symbol])).find((p) => p.symbol === stop.symbol);
      if (!position) return null;
      const quantity = await size(deployment, gateway, stop.symbol, position.quantity, position.markPrice);
      if (quantity === null) return null;
      const order = await placement.place(gateway, {
        userId: deployment.userId,
        deploymentId: deployment.id,
        symbol: stop.symbol,
        side: position.side === 'long' ? 'sell' : 'buy',
        type: 'market',
        quantity,
        reduceOnly: true,
      });
      await log.write(deployment, 'warn', `Stop order refused by the exchange (${why}): ${describeOrder(stop)}; position closed with ${describeOrder(order)}`);
      await sync.report(deployment, null, order);
      let current = order;
      for (let attempt = 0; attempt < 3 && isOpen(current); attempt++) current = await sync.reconcile(deployment, gateway, current);
      return current;
    },
  };
}

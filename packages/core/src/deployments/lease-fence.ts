import { StratboxError } from '../errors/stratbox-error.js';
import type { ExchangeGateway } from '../ports/exchange-gateway.js';
import type { Store } from '../ports/store.js';

/*
 * The last check before an order leaves: a process whose lease on a deployment was taken (by a
 * process that resumed it after this one seemed dead, across a pause or a partition) must not
 * send the order it was about to send. The runner's orders go through `fenceGateway`, which
 * asks the fence right before each `createOrder`; the supervisor's fence confirms the lease in
 * the Store (`renewLease`, a compare-and-set on the owner and the expiry), so a lease stolen a
 * moment ago refuses the send even when this process has not noticed yet.
 */

/** The order was not sent: this process no longer holds the deployment's lease. */
export class LeaseLostError extends StratboxError {
  constructor(deploymentId: string, clientOrderId: string) {
    super('CONFLICT', `Order ${clientOrderId} not sent: this process no longer holds the lease of deployment ${deploymentId}`, {
      deploymentId,
      clientOrderId,
    });
  }
}

/** Resolves when the caller may still act for the deployment, else false. */
export type LeaseFence = () => Promise<boolean>;

/**
 * A fence on the Store's lease: true only if `owner` still holds an unexpired lease on the
 * deployment (the lease is extended by `leaseMs` on the way: the holder is acting).
 */
export function createStoreLeaseFence(deps: {
  store: Store;
  deploymentId: string;
  owner: string;
  leaseMs: number;
  /** Local view first (the lease was not renewed in time here): no Store round trip needed to refuse. */
  holds?: () => boolean;
  wall?: () => number;
}): LeaseFence {
  const wall = deps.wall ?? Date.now;
  return async () => {
    if (deps.holds && !deps.holds()) return false;
    const at = wall();
    return deps.store.deployments.renewLease(deps.deploymentId, deps.owner, new Date(at + deps.leaseMs).toISOString(), new Date(at).toISOString());
  };
}

/**
 * `gateway` whose `createOrder` asks `fence` first. Refused, the order (written `pending` by the
 * write-ahead placement) is marked `rejected` (it certainly never left) and `LeaseLostError` is
 * thrown.
 */
export function fenceGateway(gateway: ExchangeGateway, fence: LeaseFence, store: Store, deploymentId: string): ExchangeGateway {
  return new Proxy(gateway, {
    get(target, key, receiver) {
      if (key !== 'createOrder') return Reflect.get(target, key, receiver);
      return async (request: Parameters<ExchangeGateway['createOrder']>[0]) => {
        if (!(await fence())) {
          const written = await store.orders.findByClientOrderId(request.clientOrderId);
          if (written) await store.orders.update(written.id, { status: 'rejected', updatedAt: new Date().toISOString() }, { expectedStatus: ['pending'] });
          throw new LeaseLostError(deploymentId, request.clientOrderId);
        }
        return target.createOrder(request);
      };
    },
  });
}

import type { Clock } from '../ports/clock.js';
import type { ExchangeGateway } from '../ports/exchange-gateway.js';
import type { Logger } from '../ports/logger.js';
import type { DeploymentRecord, OrderRecord, Store } from '../ports/store.js';
import type { DeploymentLogWriter } from './deployment-log.js';
import { isOpen, type OrderSync } from './order-sync.js';
import type { RiskBreach } from './risk-guard.js';

/*
 * What a breached risk limit does to a deployment, once: it moves `starting`/`running` to
 * `halted` by compare-and-set with the breach recorded (`halt`), logs it with its figures, then
 * cancels the entry orders and, with `onBreach: 'close'` (the default), every other order too and
 * closes the positions with reduce-only market orders; with `'keep'` the positions and their
 * exit orders (reduce-only ones, and the strategy's stop-loss / take-profit closes) stay. Every
 * order change goes out on `deployment:<id>:orders` as usual. There is no status channel: the
 * record (`GET /api/deployments/:id`) and the log carry the halt.
 */

export interface RiskHaltDeps {
  store: Store;
  clock: Clock;
  logger: Logger;
  log: DeploymentLogWriter;
  sync: OrderSync;
}

/**
 * Halts `deployment` for `breach`. Returns the halted record, or null when the deployment was
 * no longer starting or running (a stop, a restart or another halt came first: nothing is
 * touched, and nothing is logged). `isExit` tells the orders kept by `onBreach: 'keep'`.
 * An exchange error while cancelling or closing is logged; the deployment stays halted.
 */
export async function haltOnBreach(
  deps: RiskHaltDeps,
  deployment: DeploymentRecord,
  gateway: ExchangeGateway,
  breach: RiskBreach,
  isExit: (order: OrderRecord) => boolean,
): Promise<DeploymentRecord | null> {
  const { store, clock, log, sync } = deps;
  const at = clock.now().toISOString();
  const halted = await store.deployments.transition(deployment.id, ['starting', 'running'], {
    status: 'halted',
    halt: { reason: breach.reason, message: breach.message, value: breach.value, limit: breach.limit, at },
    updatedAt: at,
  });
  if (!halted) return null;
  const close = (deployment.risk?.onBreach ?? 'close') === 'close';
  deps.logger.warn('deployment halted by a risk limit', { deploymentId: deployment.id, reason: breach.reason, value: breach.value, limit: breach.limit });
  await log.write(
    halted,
    'warn',
    `Risk limit breached (${breach.reason}): ${breach.message}. Halted: ${close ? 'cancelling its orders and closing its positions' : 'cancelling its entry orders, keeping its positions and their exits'}`,
  );
  try {
    let cancelled = 0;
    let left = 0;
    for (const order of await store.orders.listOpen(deployment.id)) {
      if (!close && isExit(order)) continue;
      const after = await sync.cancel(halted, gateway, order);
      if (isOpen(after)) left++;
      else if (after.status === 'cancelled') cancelled++;
    }
    if (left > 0) throw new Error(`${left} order(s) could not be cancelled yet: the exchange has not acknowledged them`);
    const closing = close ? await sync.closePositions(halted, gateway) : [];
    const open = closing.filter((o) => o.status !== 'filled');
    if (open.length > 0) throw new Error(`${open.length} closing order(s) did not fill: ${open.map((o) => `${o.id} ${o.status}`).join(', ')}`);
    await log.write(
      halted,
      'info',
      `Deployment halted (${cancelled} order(s) cancelled, ${close ? `${closing.length} position(s) closed` : 'positions kept'}). Restart it to resume with new or the same limits, or stop it.`,
    );
  } catch (error) {
    await log.write(
      halted,
      'error',
      `Halted, but the account could not be ${close ? 'flattened' : 'cleared of entry orders'}: ${error instanceof Error ? error.message : String(error)}. Stop the deployment to retry.`,
    );
  }
  return halted;
}

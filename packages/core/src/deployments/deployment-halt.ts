import type { DeploymentHalt } from '@stratbox/contract';
import type { Clock } from '../ports/clock.js';
import type { ExchangeGateway } from '../ports/exchange-gateway.js';
import type { Logger } from '../ports/logger.js';
import type { DeploymentRecord, OrderRecord, Store } from '../ports/store.js';
import type { DeploymentLogWriter } from './deployment-log.js';
import { isOpen, type OrderSync } from './order-sync.js';
import { recordDeploymentHalted } from './deployment-events.js';

/*
 * Halting a deployment, the one path for every reason (a breached risk limit, a position that
 * reconciliation cannot explain): it moves `starting`/`running` to `halted` by compare-and-set
 * with the reason recorded (`halt`) and the `deployment.halted` notification in the same
 * transaction, logs it with its figures, then cancels the orders it does
 * not keep and, when asked to flatten, closes the positions with reduce-only market orders.
 * Every order change goes out on `deployment:<id>:orders` as usual. There is no status channel:
 * the record (`GET /api/deployments/:id`) and the log carry the halt.
 */

export interface DeploymentHaltDeps {
  store: Store;
  clock: Clock;
  logger: Logger;
  log: DeploymentLogWriter;
  sync: OrderSync;
}

export interface HaltActions {
  /** Close every position with reduce-only market orders (after cancelling every order not kept). */
  flatten: boolean;
  /** Orders left in place (exits, when the positions are kept); every other open order is cancelled. */
  keep: (order: OrderRecord) => boolean;
  /** The first log line's opening, naming the reason with its figures. */
  headline: string;
  /** What the first log line says happens next, e.g. "keeping its positions and their exits". */
  describe: string;
}

export interface HaltOutcome {
  deployment: DeploymentRecord;
  /** Orders the halt cancelled or closed with, as they are now (for the strategy's onOrder and the caller's report). */
  changed: OrderRecord[];
}

/**
 * Halts `deployment` for `halt`. Returns the halted record with the orders it changed, or null
 * when the deployment was no longer starting or running (a stop, a restart or another halt came
 * first: nothing is touched, and nothing is logged). An exchange error while cancelling or
 * closing is logged; the deployment stays halted, and stopping it retries.
 */
export async function haltDeployment(
  deps: DeploymentHaltDeps,
  deployment: DeploymentRecord,
  gateway: ExchangeGateway,
  halt: DeploymentHalt,
  actions: HaltActions,
): Promise<HaltOutcome | null> {
  const { store, log, sync } = deps;
  const halted = await store.transaction(async (tx) => {
    const moved = await tx.deployments.transition(deployment.id, ['starting', 'running'], { status: 'halted', halt, updatedAt: halt.at });
    if (moved) await recordDeploymentHalted(tx, moved, halt);
    return moved;
  });
  if (!halted) return null;
  deps.logger.warn('deployment halted', { deploymentId: deployment.id, reason: halt.reason, value: halt.value, limit: halt.limit });
  await log.write(halted, 'warn', `${actions.headline}. Halted: ${actions.describe}`);
  const changed: OrderRecord[] = [];
  try {
    let left = 0;
    for (const order of await store.orders.listOpen(deployment.id)) {
      if (actions.keep(order)) continue;
      const after = await sync.cancel(halted, gateway, order);
      if (isOpen(after)) left++;
      else changed.push(after);
    }
    if (left > 0) throw new Error(`${left} order(s) could not be cancelled yet: the exchange has not acknowledged them`);
    const closing = actions.flatten ? await sync.closePositions(halted, gateway) : [];
    changed.push(...closing);
    const open = closing.filter((o) => o.status !== 'filled');
    if (open.length > 0) throw new Error(`${open.length} closing order(s) did not fill: ${open.map((o) => `${o.id} ${o.status}`).join(', ')}`);
    const cancelled = changed.filter((o) => o.status === 'cancelled').length;
    await log.write(
      halted,
      'info',
      `Deployment halted (${cancelled} order(s) cancelled, ${actions.flatten ? `${closing.length} position(s) closed` : 'positions kept'}). Restart it to resume, or stop it.`,
    );
  } catch (error) {
    await log.write(
      halted,
      'error',
      `Halted, but the account could not be ${actions.flatten ? 'flattened' : 'cleared of entry orders'}: ${error instanceof Error ? error.message : String(error)}. Stop the deployment to retry.`,
    );
  }
  return { deployment: halted, changed };
}

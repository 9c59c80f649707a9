import type { Clock } from '../ports/clock.js';
import type { Logger } from '../ports/logger.js';
import type { DeploymentRecord, Store } from '../ports/store.js';
import type { DeploymentLeases } from './deployment-leases.js';
import type { DeploymentLogWriter } from './deployment-log.js';
import type { DeploymentFailure, DeploymentRunner, LeasedGateway } from './deployment-runner.js';
import type { OrderSync } from './order-sync.js';
import { recordDeploymentFailed, recordDeploymentStopped } from './deployment-events.js';

/*
 * How a deployment ends in the process that runs it: the stop a user asked for (cancel the open
 * orders, close the positions with reduce-only market orders, then `stopped`, or `failed` with
 * `STOP_FAILED` when the exchange would not let it finish), and the failure of a running one
 * (cancel its open orders, leave its positions, then `failed` with the runner's reason). Both run
 * under the deployment's lock (the caller takes it), move the status by compare-and-set (with the
 * `deployment.stopped` or `deployment.failed` notification in the same transaction), and
 * release the deployment's lease at the end.
 */

export interface DeploymentStopDeps {
  store: Store;
  clock: Clock;
  logger: Logger;
  log: DeploymentLogWriter;
  sync: OrderSync;
  leases: DeploymentLeases;
  /** The runners of this process, by deployment id; an ended deployment's runner is removed. */
  runners: Map<string, DeploymentRunner>;
  acquireGateway(deployment: DeploymentRecord): Promise<LeasedGateway>;
  /** Cancels the deployment's next poll. */
  stopPolling(id: string): void;
}

export interface DeploymentStopFlow {
  /**
   * Carries out the stop of a `stopping` deployment, in the process holding its lease: it halts
   * the strategy, cancels the open orders, closes the positions, then moves it to `stopped` (or
   * `failed`). A process that cannot get the lease (another one runs the deployment) leaves it
   * `stopping`: the holder carries the stop out at its next poll, and if the holder dies, the
   * process that takes the lease over does. So the account is never flattened by one process
   * while another still trades on it. A deployment no longer `stopping` is left untouched.
   */
  stop(deployment: DeploymentRecord): Promise<void>;
  /** Cancels open orders, halts the runner, then moves the deployment from `starting`/`running` to `failed`. */
  fail(runner: DeploymentRunner | null, deployment: DeploymentRecord, failure: DeploymentFailure): Promise<void>;
}

export function createDeploymentStopFlow(deps: DeploymentStopDeps): DeploymentStopFlow {
  const { store, clock, logger, log, sync, leases, runners, acquireGateway } = deps;
  const now = () => clock.now().toISOString();

  return {
    async fail(runner, deployment, failure) {
      deps.stopPolling(deployment.id);
      runners.delete(deployment.id);
      let leased: LeasedGateway | null = null;
      try {
        const gateway = runner?.gateway() ?? (leased = await acquireGateway(deployment)).gateway;
        const left = await sync.cancelAll(deployment, gateway);
        if (left > 0) await log.write(deployment, 'warn', `${left} order(s) could not be cancelled yet: the exchange has not acknowledged them`);
      } catch (error) {
        await log.write(deployment, 'error', `Could not cancel the open orders: ${error instanceof Error ? error.message : String(error)}`);
      } finally {
        leased?.release();
      }
      await runner?.halt();
      const time = now();
      const failed = await store.transaction(async (tx) => {
        const moved = await tx.deployments.transition(deployment.id, ['starting', 'running'], {
          status: 'failed',
          error: failure,
          stoppedAt: time,
          updatedAt: time,
        });
        if (moved) await recordDeploymentFailed(tx, moved, failure, time);
        return moved;
      });
      if (failed) await log.write(deployment, 'error', `Deployment failed (${failure.code}): ${failure.message}`);
      await leases.release(deployment.id);
    },

    async stop(deployment) {
      deps.stopPolling(deployment.id);
      // Only a deployment still `stopping` is flattened (a second stop of a stopped one touches nothing).
      const current = await store.deployments.findById(deployment.userId, deployment.id);
      if (current?.status !== 'stopping') return;
      if (!leases.holds(deployment.id) && !(await leases.acquire(deployment.id))) {
        logger.debug('deployment stop left to the lease holder', leases.fields(deployment.id));
        return;
      }
      const runner = runners.get(deployment.id) ?? null;
      runners.delete(deployment.id);
      let leased: LeasedGateway | null = null;
      try {
        const gateway = runner?.gateway() ?? (leased = await acquireGateway(deployment)).gateway;
        logger.info('deployment stopping', leases.fields(deployment.id));
        await log.write(deployment, 'info', 'Stopping: cancelling open orders and closing positions');
        // The strategy stops first, so nothing places an order while the account is flattened.
        const left = await sync.cancelAll(deployment, gateway);
        if (left > 0) throw new Error(`${left} order(s) could not be cancelled: the exchange has not acknowledged them`);
        const closing = await sync.closePositions(deployment, gateway);
        const open = closing.filter((o) => o.status !== 'filled');
        if (open.length > 0) throw new Error(`${open.length} closing order(s) did not fill: ${open.map((o) => `${o.id} ${o.status}`).join(', ')}`);
        await runner?.halt();
        const time = now();
        const stopped = await store.transaction(async (tx) => {
          const moved = await tx.deployments.transition(deployment.id, ['stopping'], { status: 'stopped', stoppedAt: time, updatedAt: time });
          if (moved) await recordDeploymentStopped(tx, moved, time, closing.length);
          return moved;
        });
        if (stopped) await log.write(deployment, 'info', `Deployment stopped (${closing.length} position(s) closed)`);
        await leases.release(deployment.id);
      } catch (error) {
        await runner?.halt();
        const text = error instanceof Error ? error.message : String(error);
        const time = now();
        const failure = { code: 'STOP_FAILED', message: `The deployment could not be stopped cleanly: ${text}` };
        const failed = await store.transaction(async (tx) => {
          const moved = await tx.deployments.transition(deployment.id, ['stopping'], { status: 'failed', error: failure, stoppedAt: time, updatedAt: time });
          if (moved) await recordDeploymentFailed(tx, moved, failure, time);
          return moved;
        });
        if (failed) await log.write(deployment, 'error', `Stop failed: ${text}. Stop again to retry.`);
        await leases.release(deployment.id);
      } finally {
        leased?.release();
      }
    },
  };
}

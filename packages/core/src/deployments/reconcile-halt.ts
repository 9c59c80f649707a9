import type { DeploymentHalt } from '@stratbox/contract';
import type { Clock } from '../ports/clock.js';
import type { DeploymentRecord, Store } from '../ports/store.js';
import type { DeploymentLogWriter } from './deployment-log.js';

/**
 * Moves a running deployment to `halted` with its reason (a compare-and-set: only from
 * `running`, so a stop or a restart that won the race is left alone) and logs why. Returns the
 * halted record, or null when the deployment was no longer running. The supervisor's poll then
 * ends its runner: a halted deployment places no more orders until its owner restarts or stops it.
 */
export async function haltDeployment(
  deps: { store: Store; clock: Clock; log: DeploymentLogWriter },
  deployment: DeploymentRecord,
  halt: DeploymentHalt,
): Promise<DeploymentRecord | null> {
  const halted = await deps.store.deployments.transition(deployment.id, ['running'], { status: 'halted', halt, updatedAt: deps.clock.now().toISOString() });
  if (halted) await deps.log.write(deployment, 'error', halt.message);
  return halted;
}

import type { ExchangeGateway } from '../ports/exchange-gateway.js';
import type { DeploymentRecord, Store } from '../ports/store.js';
import type { Clock } from '../ports/clock.js';
import type { DeploymentLogWriter } from './deployment-log.js';
import { runPreflight, type PreflightOptions, type PreflightResult, type PreflightSettings } from './preflight.js';

export interface DeploymentPreflightInput {
  gateway: ExchangeGateway;
  deployment: DeploymentRecord;
  /** True when a running deployment resumes (a restart of the service, a lease taken over). */
  resumed: boolean;
  store: Store;
  clock: Clock;
  log: DeploymentLogWriter;
  settings?: PreflightSettings;
  options?: PreflightOptions;
}

/**
 * The pre-flight step of a deployment's start (see `preflight.ts`): runs the checks, keeps their
 * report on the deployment record (`preflight`), logs what passed, and returns the failure that
 * must end the deployment, or null to go on. An exchange that cannot be reached fails a new
 * deployment, but not one resuming: that one goes on (its polls count the failures) with a
 * warning, so a brief outage during a restart of the service does not fail every deployment.
 */
export async function preflightDeployment(input: DeploymentPreflightInput): Promise<{ code: string; message: string } | null> {
  const { deployment, log } = input;
  const result: PreflightResult = await runPreflight(input.gateway, deployment.symbols, input.settings, {
    checkedAt: input.clock.now().toISOString(),
    ...input.options,
  });
  const { ok, checkedAt, clockOffsetMs, checks } = result;
  await input.store.deployments.update(deployment.id, { preflight: { ok, checkedAt, clockOffsetMs, checks }, updatedAt: checkedAt });
  if (result.failure === null) {
    await log.write(deployment, 'info', `Pre-flight checks passed: ${checks.map((c) => c.message).join('; ')}`);
    return null;
  }
  if (result.failure.transient && input.resumed) {
    await log.write(deployment, 'warn', `Pre-flight checks could not finish; resuming anyway: ${result.failure.message}`);
    return null;
  }
  return { code: result.failure.code, message: result.failure.message };
}

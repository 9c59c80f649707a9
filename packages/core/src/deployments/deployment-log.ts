import type { Clock } from '../ports/clock.js';
import type { Logger } from '../ports/logger.js';
import type { DeploymentLogLevel, DeploymentRecord, Store } from '../ports/store.js';

/** Longest log line kept; longer lines are cut. */
const MAX_LINE = 4000;

export interface DeploymentLogWriter {
  /** Appends one line to the deployment's log (system events: started, order placed, filled, error...). */
  write(deployment: Pick<DeploymentRecord, 'id' | 'userId'>, level: DeploymentLogLevel, message: string): Promise<void>;
  /** Appends several lines at once (a strategy call's `ctx.log` lines). */
  writeMany(deployment: Pick<DeploymentRecord, 'id' | 'userId'>, lines: ReadonlyArray<{ level: DeploymentLogLevel; message: string }>): Promise<void>;
}

/**
 * Writes deployment log lines to the Store, stamped with the clock. A failed write is reported
 * to the host's logger and never fails the deployment: the log is for the user, the orders are
 * what must not be lost. Never pass secrets: the user reads these lines.
 */
export function createDeploymentLogWriter({ store, clock, logger }: { store: Store; clock: Clock; logger: Logger }): DeploymentLogWriter {
  async function writeMany(deployment: Pick<DeploymentRecord, 'id' | 'userId'>, lines: ReadonlyArray<{ level: DeploymentLogLevel; message: string }>) {
    if (lines.length === 0) return;
    const timestamp = clock.now().toISOString();
    try {
      await store.deploymentLogs.append(
        lines.map((l) => ({
          deploymentId: deployment.id,
          userId: deployment.userId,
          timestamp,
          level: l.level,
          message: l.message.length > MAX_LINE ? `${l.message.slice(0, MAX_LINE)}...` : l.message,
        })),
      );
    } catch (error) {
      logger.error('Could not write the deployment log', { deploymentId: deployment.id, error: error instanceof Error ? error.message : String(error) });
    }
  }
  return {
    writeMany,
    write: (deployment, level, message) => writeMany(deployment, [{ level, message }]),
  };
}

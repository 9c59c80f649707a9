import type { Logger } from '../ports/logger.js';
import type { DeploymentRecord, Store } from '../ports/store.js';
import type { DeploymentLeases } from './deployment-leases.js';
import type { DeploymentLocks } from './deployment-locks.js';
import type { DeploymentRunner } from './deployment-runner.js';
import type { DeploymentStopFlow } from './deployment-stop.js';

/*
 * When things happen to the deployments of this process: each running deployment's poll on a
 * timer (under the deployment's lock: it checks the status and the lease, then runs one cycle),
 * and the scan that finds deployments no live process holds (`starting` ones, stops left
 * half-done, those whose lease expired) and launches or stops them a few at a time.
 */

export interface DeploymentSchedulerDeps {
  store: Store;
  logger: Logger;
  pollIntervalMs: number;
  scanIntervalMs: number;
  /** How many deployments a scan launches (or stops) at once. */
  resumeConcurrency: number;
  /** How many deployments one Store read returns while scanning. */
  scanPageSize: number;
  runners: Map<string, DeploymentRunner>;
  locks: DeploymentLocks;
  leases: DeploymentLeases;
  stopFlow: DeploymentStopFlow;
  /** Runs a `starting` or `running` deployment found by a scan (takes the lock itself). */
  launch(deployment: DeploymentRecord): Promise<void>;
  /** Carries out the stop of a `stopping` deployment found by a scan (takes the lock itself). */
  stop(deployment: DeploymentRecord): Promise<void>;
}

export interface DeploymentScheduler {
  /**
   * Polls the runner once `pollIntervalMs` from now, then again after every poll, for as long as
   * it is the deployment's runner in `runners` and not halted. A poll finds the deployment
   * stopped, restarted or deleted (the runner ends), `stopping` (this process, holding the lease,
   * stops it), its lease no longer fresh (the runner halts), or else runs one cycle, and fails
   * the deployment when the cycle says so.
   */
  poll(runner: DeploymentRunner): void;
  /** Cancels the deployment's next poll (a poll in flight finishes). */
  cancel(id: string): void;
  /**
   * Resumes every deployment no live process holds (read page by page, `resumeConcurrency` at a
   * time, in the background), then scans again `scanIntervalMs` after each pass ends.
   */
  startScanning(): void;
  /** Cancels every poll and the next scan; nothing is scheduled afterwards. */
  close(): void;
}

const message = (error: unknown) => (error instanceof Error ? error.message : String(error));

export function createDeploymentScheduler(deps: DeploymentSchedulerDeps): DeploymentScheduler {
  const { store, logger, runners, locks, leases, stopFlow } = deps;
  const timers = new Map<string, NodeJS.Timeout>();
  let scanTimer: NodeJS.Timeout | undefined;
  let closed = false;

  function cancel(id: string) {
    clearTimeout(timers.get(id));
    timers.delete(id);
  }

  function poll(runner: DeploymentRunner) {
    const id = runner.deployment.id;
    cancel(id);
    if (closed || runner.halted) return;
    const timer = setTimeout(() => {
      timers.delete(id);
      void locks
        .run(id, async () => {
          if (runners.get(id) !== runner || runner.halted) return;
          // Stopped, restarted or deleted meanwhile (possibly by another process): this runner ends.
          const current = await store.deployments.findById(runner.deployment.userId, id);
          if (current?.status === 'stopping' && leases.holds(id)) {
            // A stop asked of another process: the lease holder carries it out, with its own runner.
            await stopFlow.stop(current);
            return;
          }
          if (current?.status !== 'running') {
            runners.delete(id);
            await runner.halt();
            await leases.release(id);
            return;
          }
          if (!leases.holds(id)) {
            leases.lose(id, 'the lease is no longer fresh');
            return;
          }
          const failure = await runner.cycle();
          // A runner halted meanwhile (its lease was lost) leaves the deployment to the next holder.
          if (failure && runners.get(id) === runner && !runner.halted) await stopFlow.fail(runner, runner.deployment, failure);
        })
        .catch((error: unknown) => logger.error('Deployment poll failed', { deploymentId: id, error: message(error) }))
        .finally(() => {
          if (runners.get(id) === runner) poll(runner);
        });
    }, deps.pollIntervalMs);
    timer.unref?.();
    timers.set(id, timer);
  }

  /**
   * Runs what no live process holds: deployments to run, and stops a dead process left
   * half-done. Reads every page, and launches at most `resumeConcurrency` at once; resolves
   * when all it started are done.
   */
  async function claimAll() {
    const inFlight = new Set<Promise<unknown>>();
    let after: { createdAt: string; id: string } | undefined;
    try {
      for (;;) {
        // Not `halted`: a halted deployment stays halted, runner-less, until its owner restarts or stops it.
        const page = await store.deployments.listByStatus(['starting', 'running', 'stopping'], deps.scanPageSize, after);
        for (const deployment of page) {
          while (inFlight.size >= deps.resumeConcurrency) await Promise.race(inFlight);
          if (closed) return;
          if (runners.has(deployment.id) || locks.busy(deployment.id)) continue;
          // A stop whose lease holder died (or a stop asked of an API-only process): whoever gets the lease carries it out.
          const task = (deployment.status === 'stopping' ? deps.stop(deployment) : deps.launch(deployment)).catch(() => undefined);
          inFlight.add(task);
          void task.then(() => inFlight.delete(task));
        }
        const last = page[page.length - 1];
        if (page.length < deps.scanPageSize || !last) break;
        after = { createdAt: last.createdAt, id: last.id };
      }
    } finally {
      await Promise.all(inFlight);
    }
  }

  // Deployments created by a process that does not run them (an API-only node), and those
  // whose process died (their lease expires, then one of the running processes takes them).
  function scanLater() {
    scanTimer = setTimeout(() => {
      void claimAll()
        .catch((error: unknown) => logger.warn('Deployment scan failed', { error: message(error) }))
        .finally(() => {
          if (!closed) scanLater();
        });
    }, deps.scanIntervalMs);
    scanTimer.unref?.();
  }

  return {
    poll,
    cancel,
    startScanning() {
      // The first pass runs in the background: a host's start() does not wait for every deployment to be back.
      void claimAll()
        .catch((error: unknown) => logger.warn('Deployment resume failed', { error: message(error) }))
        .finally(() => {
          if (!closed) scanLater();
        });
    },
    close() {
      closed = true;
      clearTimeout(scanTimer);
      for (const id of [...timers.keys()]) cancel(id);
    },
  };
}

import type { CredentialService } from '../credentials/credential-service.js';
import type { ExchangeClientPool } from '../exchanges/exchange-client-pool.js';
import { createOrderPlacement } from '../exchanges/order-placement.js';
import type { Clock } from '../ports/clock.js';
import type { EventBus } from '../ports/event-bus.js';
import type { Logger } from '../ports/logger.js';
import type { MarketData } from '../ports/market-data.js';
import type { DeploymentRecord, Store } from '../ports/store.js';
import type { LiveSandbox } from '../sandbox/live-sandbox.js';
import { createDeploymentLogWriter } from './deployment-log.js';
import { createDeploymentRunner, type DeploymentFailure, type DeploymentRunner, type LeasedGateway } from './deployment-runner.js';
import { createOrderSync } from './order-sync.js';

/** Options of the deployment supervisor that a host may tune. */
export interface DeploymentSupervisorOptions {
  /**
   * How often each running deployment polls: its open orders are brought up to date, and
   * candles that closed since the last poll go to the strategy. Default 5 s. (Candles are only
   * fetched once a timeframe boundary has passed.)
   */
  pollIntervalMs?: number;
  /** Consecutive polls with exchange or market-data failures before a deployment fails. Default 5. */
  maxExchangeFailures?: number;
  /**
   * Whether this process runs deployments (default true). Exactly ONE process of a service may:
   * two would each run the same deployment. With false, `launch` leaves a new deployment
   * `starting` for the process that runs them, which picks it up within `scanIntervalMs`.
   */
  run?: boolean;
  /** How often a running process looks for deployments another process left `starting`. Default 10 s. */
  scanIntervalMs?: number;
}

export interface DeploymentSupervisorDeps extends DeploymentSupervisorOptions {
  store: Store;
  clock: Clock;
  logger: Logger;
  events: EventBus;
  marketData: MarketData;
  credentials: CredentialService;
  exchanges: ExchangeClientPool;
  sandbox: LiveSandbox;
  onCompute?: (userId: string, cpuMs: number) => void;
}

export interface DeploymentSupervisor {
  /** Resumes every deployment that was starting, running or stopping when the process ended. */
  start(): Promise<void>;
  /** Runs a deployment that is `starting` (created or restarted); resolves once it runs or failed. */
  launch(deployment: DeploymentRecord): Promise<void>;
  /**
   * Stops a deployment that is `stopping`: halts its strategy, cancels its open orders, closes
   * its positions with reduce-only market orders, then moves it to `stopped` (or to `failed`
   * with the reason, when the exchange would not let it finish).
   */
  stop(deployment: DeploymentRecord): Promise<void>;
  /** Halts the strategy of a deployment without touching its orders (restart, delete after stop). */
  halt(deploymentId: string): Promise<void>;
  /** Ids of the deployments running in this process. */
  running(): string[];
  /** Halts every deployment (their status stays, so the next start resumes them). */
  close(): Promise<void>;
}

/**
 * The deployment supervisor: one runner per running deployment, polled on a timer. Every
 * operation on one deployment (launch, poll, stop, fail, halt) runs under that deployment's
 * lock, one at a time, so a stop never interleaves with a poll placing an order. Status changes
 * are compare-and-set transitions in the Store.
 */
export function createDeploymentSupervisor(deps: DeploymentSupervisorDeps): DeploymentSupervisor {
  const { store, clock, logger } = deps;
  const pollIntervalMs = deps.pollIntervalMs ?? 5000;
  const maxExchangeFailures = deps.maxExchangeFailures ?? 5;
  const placement = createOrderPlacement({ store, clock });
  const log = createDeploymentLogWriter({ store, clock, logger });
  const sync = createOrderSync({ store, clock, events: deps.events, placement, log });
  const runners = new Map<string, DeploymentRunner>();
  const timers = new Map<string, NodeJS.Timeout>();
  const locks = new Map<string, Promise<unknown>>();
  let closed = false;
  const runsHere = deps.run !== false;
  let scanTimer: NodeJS.Timeout | undefined;

  /** Runs `fn` after every earlier operation on the same deployment. */
  function locked<T>(id: string, fn: () => Promise<T>): Promise<T> {
    const previous = locks.get(id) ?? Promise.resolve();
    const result = previous.then(fn, fn);
    const tail = result.catch(() => undefined);
    locks.set(id, tail);
    void tail.then(() => {
      if (locks.get(id) === tail) locks.delete(id);
    });
    return result;
  }

  async function acquireGateway(deployment: DeploymentRecord): Promise<LeasedGateway> {
    const credential = await deps.credentials.openSecrets(deployment.userId, deployment.credentialId);
    const marketType = deployment.symbols.every((s) => s.includes(':')) ? 'LINEAR' : 'SPOT';
    const gateway = await deps.exchanges.acquire(credential, marketType);
    let released = false;
    return {
      gateway,
      release() {
        if (released) return;
        released = true;
        deps.exchanges.release(credential.id);
      },
    };
  }

  const now = () => clock.now().toISOString();

  /** Cancels open orders, halts the runner, then moves the deployment to `failed`. Under the lock. */
  async function failNow(runner: DeploymentRunner | null, deployment: DeploymentRecord, failure: DeploymentFailure) {
    stopTimer(deployment.id);
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
    const failed = await store.deployments.transition(deployment.id, ['starting', 'running'], { status: 'failed', error: failure, stoppedAt: time, updatedAt: time });
    if (failed) await log.write(deployment, 'error', `Deployment failed (${failure.code}): ${failure.message}`);
  }

  function stopTimer(id: string) {
    clearTimeout(timers.get(id));
    timers.delete(id);
  }

  function schedule(runner: DeploymentRunner) {
    const id = runner.deployment.id;
    stopTimer(id);
    if (closed || runner.halted) return;
    const timer = setTimeout(() => {
      timers.delete(id);
      void locked(id, async () => {
        if (runners.get(id) !== runner || runner.halted) return;
        // Stopped, restarted or deleted meanwhile (possibly by another process): this runner ends.
        const current = await store.deployments.findById(runner.deployment.userId, id);
        if (current?.status !== 'running') {
          runners.delete(id);
          await runner.halt();
          return;
        }
        const failure = await runner.cycle();
        if (failure) await failNow(runner, runner.deployment, failure);
      })
        .catch((error: unknown) => logger.error('Deployment poll failed', { deploymentId: id, error: error instanceof Error ? error.message : String(error) }))
        .finally(() => {
          if (runners.get(id) === runner) schedule(runner);
        });
    }, pollIntervalMs);
    timer.unref?.();
    timers.set(id, timer);
  }

  async function launchNow(deployment: DeploymentRecord) {
    if (closed) return;
    const existing = runners.get(deployment.id);
    if (existing) {
      stopTimer(deployment.id);
      runners.delete(deployment.id);
      await existing.halt();
    }
    let runner: DeploymentRunner;
    runner = createDeploymentRunner(deployment, {
      store,
      clock,
      logger,
      marketData: deps.marketData,
      sandbox: deps.sandbox,
      placement,
      orders: sync,
      log,
      acquireGateway,
      maxExchangeFailures,
      ...(deps.onCompute ? { onCompute: deps.onCompute } : {}),
      onCrash: (error) => {
        void locked(deployment.id, async () => {
          if (runners.get(deployment.id) !== runner) return;
          await failNow(runner, runner.deployment, { code: error.code, message: error.message });
        });
      },
    });
    runners.set(deployment.id, runner);
    const failure = await runner.start();
    if (failure) {
      await failNow(runner, deployment, failure);
      return;
    }
    if (runner.halted) {
      runners.delete(deployment.id);
      return;
    }
    schedule(runner);
  }

  return {
    async start() {
      if (!runsHere || closed) return;
      const pending = await store.deployments.listByStatus(['starting', 'running', 'stopping'], 10_000);
      for (const deployment of pending) {
        if (deployment.status === 'stopping') void this.stop(deployment).catch(() => undefined);
        else void this.launch(deployment).catch(() => undefined);
      }
      // Deployments created by a process that does not run them (an API-only node).
      const scan = () => {
        scanTimer = setTimeout(() => {
          void store.deployments
            .listByStatus(['starting'], 1000)
            .then((starting) => {
              for (const d of starting) if (!runners.has(d.id) && !locks.has(d.id)) void this.launch(d);
            })
            .catch((error: unknown) => logger.warn('Deployment scan failed', { error: error instanceof Error ? error.message : String(error) }))
            .finally(() => {
              if (!closed) scan();
            });
        }, deps.scanIntervalMs ?? 10_000);
        scanTimer.unref?.();
      };
      scan();
    },

    launch(deployment) {
      if (!runsHere) return Promise.resolve();
      return locked(deployment.id, () => launchNow(deployment)).catch((error: unknown) => {
        logger.error('Deployment launch failed', { deploymentId: deployment.id, error: error instanceof Error ? error.message : String(error) });
      });
    },

    stop(deployment) {
      return locked(deployment.id, async () => {
        stopTimer(deployment.id);
        // Only a deployment still `stopping` is flattened (a second stop of a stopped one touches nothing).
        const current = await store.deployments.findById(deployment.userId, deployment.id);
        if (current?.status !== 'stopping') return;
        const runner = runners.get(deployment.id) ?? null;
        runners.delete(deployment.id);
        let leased: LeasedGateway | null = null;
        try {
          const gateway = runner?.gateway() ?? (leased = await acquireGateway(deployment)).gateway;
          await log.write(deployment, 'info', 'Stopping: cancelling open orders and closing positions');
          // The strategy stops first, so nothing places an order while the account is flattened.
          const left = await sync.cancelAll(deployment, gateway);
          if (left > 0) throw new Error(`${left} order(s) could not be cancelled: the exchange has not acknowledged them`);
          const closing = await sync.closePositions(deployment, gateway);
          const open = closing.filter((o) => o.status !== 'filled');
          if (open.length > 0) throw new Error(`${open.length} closing order(s) did not fill: ${open.map((o) => `${o.id} ${o.status}`).join(', ')}`);
          await runner?.halt();
          const time = now();
          const stopped = await store.deployments.transition(deployment.id, ['stopping'], { status: 'stopped', stoppedAt: time, updatedAt: time });
          if (stopped) await log.write(deployment, 'info', `Deployment stopped (${closing.length} position(s) closed)`);
        } catch (error) {
          await runner?.halt();
          const text = error instanceof Error ? error.message : String(error);
          const time = now();
          const failed = await store.deployments.transition(deployment.id, ['stopping'], {
            status: 'failed',
            error: { code: 'STOP_FAILED', message: `The deployment could not be stopped cleanly: ${text}` },
            stoppedAt: time,
            updatedAt: time,
          });
          if (failed) await log.write(deployment, 'error', `Stop failed: ${text}. Stop again to retry.`);
        } finally {
          leased?.release();
        }
      });
    },

    halt(deploymentId) {
      return locked(deploymentId, async () => {
        stopTimer(deploymentId);
        const runner = runners.get(deploymentId);
        runners.delete(deploymentId);
        await runner?.halt();
      });
    },

    running: () => [...runners.keys()],

    async close() {
      closed = true;
      clearTimeout(scanTimer);
      for (const id of [...timers.keys()]) stopTimer(id);
      await Promise.all([...runners.keys()].map((id) => this.halt(id)));
    },
  };
}

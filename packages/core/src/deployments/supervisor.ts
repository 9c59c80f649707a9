import type { CredentialService } from '../credentials/credential-service.js';
import type { ExchangeClientPool } from '../exchanges/exchange-client-pool.js';
import { createOrderPlacement } from '../exchanges/order-placement.js';
import type { Clock } from '../ports/clock.js';
import type { EventBus } from '../ports/event-bus.js';
import type { ExchangePosition } from '../ports/exchange-gateway.js';
import type { Logger } from '../ports/logger.js';
import type { MarketData } from '../ports/market-data.js';
import type { DeploymentRecord, Store } from '../ports/store.js';
import type { LiveSandbox } from './live-sandbox.js';
import { createDeploymentGateways } from './deployment-gateway.js';
import { createDeploymentLeases } from './deployment-leases.js';
import { createDeploymentLocks } from './deployment-locks.js';
import { createDeploymentLogWriter } from './deployment-log.js';
import { createDeploymentRunner, type DeploymentRunner } from './deployment-runner.js';
import { createDeploymentScheduler } from './deployment-scheduler.js';
import { createDeploymentStopFlow } from './deployment-stop.js';
import { createOrderSync } from './order-sync.js';
import { createStoreLeaseFence } from './lease-fence.js';

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
   * Whether this process runs deployments (default true). Any number of processes of a service
   * may: each deployment runs only in the process holding its lease (see `leaseMs`). With false,
   * `launch` leaves a new deployment `starting` for a process that runs them, which picks it up
   * within `scanIntervalMs`.
   */
  run?: boolean;
  /**
   * How often a running process looks for deployments it could run: `starting` ones another
   * process created, and `starting` or `running` ones whose lease expired (their process died).
   * Default 10 s.
   */
  scanIntervalMs?: number;
  /**
   * How long a process's lease on a deployment lasts without renewal (default 15 000 ms). The
   * holder renews it every `leaseMs / 3`; if it could not renew for `leaseMs * 2 / 3` it stops
   * running the deployment on its own (orders and positions are left as they are), so it has
   * stopped before the lease expires and another process may take over. A dead process's
   * deployments are taken over within about `leaseMs + scanIntervalMs`, reconciling their
   * orders as after a restart. Lease times are wall-clock times (not `clock`): the processes of
   * a service need clocks that agree to well within `leaseMs / 3`.
   */
  leaseMs?: number;
  /**
   * How many deployments this process starts (or resumes) at once at `start()` and at each scan:
   * each forks a sandbox process and warms its strategy up, so a restart with many deployments
   * brings them back a few at a time. Default 4.
   */
  resumeConcurrency?: number;
  /** How many deployments one Store read returns while resuming and scanning; all pages are read. Default 500. */
  scanPageSize?: number;
  /**
   * How often each running deployment reconciles the Store with its exchange account (orders,
   * positions; see docs/live-deployments.md, "Reconciliation"), in ms of `clock`. Default 30 000.
   * A run also follows at once when an open order is gone from the exchange.
   */
  reconcileIntervalMs?: number;
  /**
   * How long a deployment's private order stream may stay connected but deliver nothing while it
   * has open orders before it counts as a gap and every open order is polled over REST at each
   * poll, until it delivers again (docs/live-deployments.md, "Order streams"), in ms of `clock`.
   * Default 60 000.
   */
  orderStreamQuietMs?: number;
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
  /** This process's lease owner id (default: random per supervisor). */
  leaseOwner?: string;
  /** Wall-clock milliseconds for leases (default `Date.now`). */
  leaseClock?: () => number;
}

export interface DeploymentSupervisor {
  /**
   * Resumes every deployment that was starting, running or stopping when the process ended (all
   * of them, read page by page, `resumeConcurrency` at a time, in the background), then scans
   * every `scanIntervalMs`. A `halted` deployment is not resumed: it stays halted until its owner
   * restarts it (through `starting`) or stops it (any process then takes its free lease to stop it).
   */
  start(): Promise<void>;
  /** Runs a deployment that is `starting` (created or restarted); resolves once it runs or failed. */
  launch(deployment: DeploymentRecord): Promise<void>;
  /**
   * Stops a deployment that is `stopping`: halts its strategy, cancels its open orders, closes
   * its positions with reduce-only market orders, then moves it to `stopped` (or to `failed`
   * with the reason, when the exchange would not let it finish). Only the process holding the
   * deployment's lease does this; called in another process while the holder lives, it leaves
   * the deployment `stopping` and the holder stops it at its next poll.
   */
  stop(deployment: DeploymentRecord): Promise<void>;
  /** Halts the strategy of a deployment without touching its orders (restart, delete after stop). */
  halt(deploymentId: string): Promise<void>;
  /**
   * The account's open positions in the deployment's symbols, read from the exchange now: through
   * the running deployment's gateway when it runs in this process, else through a gateway leased
   * for this read from the exchange client pool (any process may answer).
   */
  fetchPositions(deployment: DeploymentRecord): Promise<ExchangePosition[]>;
  /** Ids of the deployments running in this process. */
  running(): string[];
  /** This process's lease owner id. */
  readonly leaseOwner: string;
  /** Halts every deployment and releases their leases (their status stays, so a running process, or the next start, resumes them). */
  close(): Promise<void>;
}

/**
 * The deployment supervisor: one runner per running deployment, polled on a timer. Every
 * operation on one deployment (launch, poll, stop, fail, halt) runs under that deployment's
 * lock, one at a time, so a stop never interleaves with a poll placing an order. Status changes
 * are compare-and-set transitions in the Store.
 *
 * Across processes, a deployment runs only in the process holding its lease in the Store
 * (`acquireLease`/`renewLease`): a runner starts after its lease was acquired, every poll checks
 * the lease is still fresh, and a lease that could not be renewed in time halts the runner at
 * once, without touching orders (a fence: the holder stops acting `leaseMs / 3` before the lease
 * can expire, so two processes never act at once, even across a partition shorter than the lease).
 *
 * It assembles one part per role: the leases (deployment-leases.ts), the per-deployment locks
 * (deployment-locks.ts), the polls and scans (deployment-scheduler.ts) and the stop and fail
 * flows (deployment-stop.ts), around this process's runners.
 */
export function createDeploymentSupervisor(deps: DeploymentSupervisorDeps): DeploymentSupervisor {
  const { store, clock, logger } = deps;
  const maxExchangeFailures = deps.maxExchangeFailures ?? 5;
  const placement = createOrderPlacement({ store, clock });
  const log = createDeploymentLogWriter({ store, clock, logger });
  const sync = createOrderSync({ store, clock, events: deps.events, placement, log });
  const acquireGateway = createDeploymentGateways(deps);
  const runners = new Map<string, DeploymentRunner>();
  const locks = createDeploymentLocks();
  let closed = false;
  const runsHere = deps.run !== false;
  let startedHere = false;

  const leases = createDeploymentLeases({
    store,
    logger,
    ...(deps.leaseMs !== undefined ? { leaseMs: deps.leaseMs } : {}),
    ...(deps.leaseOwner !== undefined ? { owner: deps.leaseOwner } : {}),
    ...(deps.leaseClock !== undefined ? { wall: deps.leaseClock } : {}),
    // The lease is gone or may be: the runner halts at once, outside the deployment's lock (a poll
    // in flight sees `halted` and places nothing more). Orders, positions and the status stay.
    onLost(id) {
      scheduler.cancel(id);
      const runner = runners.get(id);
      runners.delete(id);
      void runner?.halt().catch(() => undefined);
      return runner !== undefined;
    },
  });
  const stopFlow = createDeploymentStopFlow({
    store,
    clock,
    logger,
    log,
    sync,
    leases,
    runners,
    acquireGateway,
    stopPolling: (id) => scheduler.cancel(id),
  });

  const scheduler = createDeploymentScheduler({
    store,
    logger,
    pollIntervalMs: deps.pollIntervalMs ?? 5000,
    scanIntervalMs: deps.scanIntervalMs ?? 10_000,
    resumeConcurrency: Math.max(1, Math.floor(deps.resumeConcurrency ?? 4)),
    scanPageSize: Math.max(1, Math.floor(deps.scanPageSize ?? 500)),
    runners,
    locks,
    leases,
    stopFlow,
    launch: (deployment) => supervisor.launch(deployment),
    stop: (deployment) => supervisor.stop(deployment),
  });

  async function launchNow(deployment: DeploymentRecord) {
    if (closed) return;
    const existing = runners.get(deployment.id);
    if (existing) {
      scheduler.cancel(deployment.id);
      runners.delete(deployment.id);
      await existing.halt();
    }
    if (!(await leases.acquire(deployment.id))) {
      logger.debug('Deployment leased by another process', { deploymentId: deployment.id });
      return;
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
      ...(deps.reconcileIntervalMs === undefined ? {} : { reconcileIntervalMs: deps.reconcileIntervalMs }),
      ...(deps.orderStreamQuietMs === undefined ? {} : { orderStreamQuietMs: deps.orderStreamQuietMs }),
      // Right before each order is sent, the lease is confirmed in the Store: a node whose lease was taken sends nothing.
      fence: createStoreLeaseFence({
        store,
        deploymentId: deployment.id,
        owner: leases.owner,
        leaseMs: leases.leaseMs,
        holds: () => leases.holds(deployment.id),
        ...(deps.leaseClock ? { wall: deps.leaseClock } : {}),
      }),
      ...(deps.onCompute ? { onCompute: deps.onCompute } : {}),
      onCrash: (error) => {
        void locks.run(deployment.id, async () => {
          if (runners.get(deployment.id) !== runner) return;
          await stopFlow.fail(runner, runner.deployment, { code: error.code, message: error.message });
        });
      },
    });
    runners.set(deployment.id, runner);
    const failure = await runner.start();
    if (runners.get(deployment.id) !== runner) {
      // The lease was lost while starting: the next holder starts it again.
      await runner.halt();
      return;
    }
    if (failure) {
      await stopFlow.fail(runner, deployment, failure);
      return;
    }
    if (runner.halted) {
      runners.delete(deployment.id);
      await leases.release(deployment.id);
      return;
    }
    scheduler.poll(runner);
  }

  const supervisor: DeploymentSupervisor = {
    async fetchPositions(deployment) {
      const gateway = runners.get(deployment.id)?.gateway();
      if (gateway) return gateway.fetchPositions(deployment.symbols);
      const leased = await acquireGateway(deployment);
      try {
        return await leased.gateway.fetchPositions(deployment.symbols);
      } finally {
        leased.release();
      }
    },

    async start() {
      if (!runsHere || closed || startedHere) return;
      startedHere = true;
      scheduler.startScanning();
    },

    launch(deployment) {
      if (!runsHere) return Promise.resolve();
      return locks
        .run(deployment.id, () => launchNow(deployment))
        .catch((error: unknown) => {
          logger.error('Deployment launch failed', { deploymentId: deployment.id, error: error instanceof Error ? error.message : String(error) });
        });
    },

    stop(deployment) {
      return locks.run(deployment.id, () => stopFlow.stop(deployment));
    },

    halt(deploymentId) {
      return locks.run(deploymentId, async () => {
        scheduler.cancel(deploymentId);
        const runner = runners.get(deploymentId);
        runners.delete(deploymentId);
        await runner?.halt();
        await leases.release(deploymentId);
      });
    },

    running: () => [...runners.keys()],

    leaseOwner: leases.owner,

    async close() {
      closed = true;
      scheduler.close();
      leases.close();
      await Promise.all([...new Set([...runners.keys(), ...leases.held()])].map((id) => supervisor.halt(id)));
    },
  };

  return supervisor;
}

import { randomBytes } from 'node:crypto';
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
   * every `scanIntervalMs`.
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
  let startedHere = false;
  const resumeConcurrency = Math.max(1, Math.floor(deps.resumeConcurrency ?? 4));
  const scanPageSize = Math.max(1, Math.floor(deps.scanPageSize ?? 500));

  // Leases
  const leaseMs = Math.max(30, deps.leaseMs ?? 15_000);
  const fenceMs = Math.floor((leaseMs * 2) / 3);
  const owner = deps.leaseOwner ?? `w_${randomBytes(9).toString('base64url')}`;
  const wall = deps.leaseClock ?? Date.now;
  const iso = (ms: number) => new Date(ms).toISOString();
  /** Leases this process holds: when the last successful acquire or renewal was sent, and the fence timer. */
  const leases = new Map<string, { renewedAt: number; fence: NodeJS.Timeout }>();
  let renewTimer: NodeJS.Timeout | undefined;
  const leaseFields = (id: string) => ({ deploymentId: id, owner, pid: process.pid });

  /** Whether this process still holds a fresh lease on the deployment (renewed less than `leaseMs * 2/3` ago). */
  function holds(id: string): boolean {
    const lease = leases.get(id);
    return lease !== undefined && wall() - lease.renewedAt < fenceMs;
  }

  /** Records a successful acquire or renewal sent at `at`, and re-arms the fence. */
  function keep(id: string, at: number) {
    clearTimeout(leases.get(id)?.fence);
    const fence = setTimeout(() => lose(id, `the lease was not renewed within ${fenceMs} ms`), Math.max(0, at + fenceMs - wall()));
    fence.unref?.();
    leases.set(id, { renewedAt: at, fence });
    if (!renewTimer && !closed) {
      renewTimer = setInterval(renewAll, Math.max(10, Math.floor(leaseMs / 3)));
      renewTimer.unref?.();
    }
  }

  /** Takes (or extends) the deployment's lease for this process. */
  async function acquire(id: string): Promise<boolean> {
    if (closed) return false;
    const at = wall();
    const ok = await store.deployments.acquireLease(id, owner, iso(at + leaseMs), iso(at));
    // An answer that took too long is no use: the lease may be about to expire (it then lapses).
    if (!ok || closed || wall() - at >= fenceMs) return false;
    const fresh = !leases.has(id);
    keep(id, at);
    if (fresh) logger.info('deployment lease acquired', { ...leaseFields(id), leaseMs });
    return true;
  }

  /**
   * The lease is gone or may be: halts the runner at once, outside the deployment's lock (a poll
   * in flight sees `halted` and places nothing more). Orders and positions stay as they are for
   * the process that takes over, and the status does not change.
   */
  function lose(id: string, reason: string) {
    const lease = leases.get(id);
    if (!lease) return;
    clearTimeout(lease.fence);
    leases.delete(id);
    stopTimer(id);
    const runner = runners.get(id);
    runners.delete(id);
    logger.warn('deployment lease lost', { ...leaseFields(id), reason, halted: runner !== undefined });
    void runner?.halt().catch(() => undefined);
  }

  /** Gives the lease up (the deployment ended here, or this process closes) so another process may take it at once. */
  async function release(id: string) {
    const lease = leases.get(id);
    if (!lease) return;
    clearTimeout(lease.fence);
    leases.delete(id);
    try {
      await store.deployments.releaseLease(id, owner);
      logger.info('deployment lease released', leaseFields(id));
    } catch (error) {
      logger.warn('Deployment lease release failed', { ...leaseFields(id), error: error instanceof Error ? error.message : String(error) });
    }
  }

  function renewAll() {
    for (const [id, lease] of leases) {
      const at = wall();
      store.deployments.renewLease(id, owner, iso(at + leaseMs), iso(at)).then(
        (ok) => {
          if (leases.get(id) !== lease) return; // released, lost or renewed meanwhile
          if (ok) keep(id, at);
          else lose(id, 'the lease expired or another process took it');
        },
        (error: unknown) =>
          logger.warn('Deployment lease renewal failed', { ...leaseFields(id), error: error instanceof Error ? error.message : String(error) }),
      );
    }
  }

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
    const failed = await store.deployments.transition(deployment.id, ['starting', 'running'], {
      status: 'failed',
      error: failure,
      stoppedAt: time,
      updatedAt: time,
    });
    if (failed) await log.write(deployment, 'error', `Deployment failed (${failure.code}): ${failure.message}`);
    await release(deployment.id);
  }

  /**
   * Carries out the stop of a `stopping` deployment, under its lock, in the process holding its
   * lease: it halts the strategy, cancels the open orders, closes the positions, then moves it to
   * `stopped` (or `failed`). A process that cannot get the lease (another one runs the
   * deployment) leaves it `stopping`: the holder carries the stop out at its next poll, and if
   * the holder dies, the process that takes the lease over does. So the account is never
   * flattened by one process while another still trades on it.
   */
  async function stopNow(deployment: DeploymentRecord): Promise<void> {
    stopTimer(deployment.id);
    // Only a deployment still `stopping` is flattened (a second stop of a stopped one touches nothing).
    const current = await store.deployments.findById(deployment.userId, deployment.id);
    if (current?.status !== 'stopping') return;
    if (!holds(deployment.id) && !(await acquire(deployment.id))) {
      logger.debug('deployment stop left to the lease holder', leaseFields(deployment.id));
      return;
    }
    const runner = runners.get(deployment.id) ?? null;
    runners.delete(deployment.id);
    let leased: LeasedGateway | null = null;
    try {
      const gateway = runner?.gateway() ?? (leased = await acquireGateway(deployment)).gateway;
      logger.info('deployment stopping', leaseFields(deployment.id));
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
      await release(deployment.id);
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
      await release(deployment.id);
    } finally {
      leased?.release();
    }
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
        if (current?.status === 'stopping' && holds(id)) {
          // A stop asked of another process: the lease holder carries it out, with its own runner.
          await stopNow(current);
          return;
        }
        if (current?.status !== 'running') {
          runners.delete(id);
          await runner.halt();
          await release(id);
          return;
        }
        if (!holds(id)) {
          lose(id, 'the lease is no longer fresh');
          return;
        }
        const failure = await runner.cycle();
        // A runner halted meanwhile (its lease was lost) leaves the deployment to the next holder.
        if (failure && runners.get(id) === runner && !runner.halted) await failNow(runner, runner.deployment, failure);
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
    if (!(await acquire(deployment.id))) {
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
    if (runners.get(deployment.id) !== runner) {
      // The lease was lost while starting: the next holder starts it again.
      await runner.halt();
      return;
    }
    if (failure) {
      await failNow(runner, deployment, failure);
      return;
    }
    if (runner.halted) {
      runners.delete(deployment.id);
      await release(deployment.id);
      return;
    }
    schedule(runner);
  }

  return {
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
      /**
       * Runs what no live process holds: deployments to run, and stops a dead process left
       * half-done. Reads every page, and launches at most `resumeConcurrency` at once; resolves
       * when all it started are done.
       */
      const claimAll = async () => {
        const inFlight = new Set<Promise<unknown>>();
        let after: { createdAt: string; id: string } | undefined;
        try {
          for (;;) {
            const page = await store.deployments.listByStatus(['starting', 'running', 'stopping'], scanPageSize, after);
            for (const deployment of page) {
              while (inFlight.size >= resumeConcurrency) await Promise.race(inFlight);
              if (closed) return;
              if (runners.has(deployment.id) || locks.has(deployment.id)) continue;
              // A stop whose lease holder died (or a stop asked of an API-only process): whoever gets the lease carries it out.
              const task = (deployment.status === 'stopping' ? this.stop(deployment) : this.launch(deployment)).catch(() => undefined);
              inFlight.add(task);
              void task.then(() => inFlight.delete(task));
            }
            const last = page[page.length - 1];
            if (page.length < scanPageSize || !last) break;
            after = { createdAt: last.createdAt, id: last.id };
          }
        } finally {
          await Promise.all(inFlight);
        }
      };
      // Deployments created by a process that does not run them (an API-only node), and those
      // whose process died (their lease expires, then one of the running processes takes them).
      const scan = () => {
        scanTimer = setTimeout(() => {
          void claimAll()
            .catch((error: unknown) => logger.warn('Deployment scan failed', { error: error instanceof Error ? error.message : String(error) }))
            .finally(() => {
              if (!closed) scan();
            });
        }, deps.scanIntervalMs ?? 10_000);
        scanTimer.unref?.();
      };
      // The first pass runs in the background: a host's start() does not wait for every deployment to be back.
      void claimAll()
        .catch((error: unknown) => logger.warn('Deployment resume failed', { error: error instanceof Error ? error.message : String(error) }))
        .finally(() => {
          if (!closed) scan();
        });
    },

    launch(deployment) {
      if (!runsHere) return Promise.resolve();
      return locked(deployment.id, () => launchNow(deployment)).catch((error: unknown) => {
        logger.error('Deployment launch failed', { deploymentId: deployment.id, error: error instanceof Error ? error.message : String(error) });
      });
    },

    stop(deployment) {
      return locked(deployment.id, () => stopNow(deployment));
    },

    halt(deploymentId) {
      return locked(deploymentId, async () => {
        stopTimer(deploymentId);
        const runner = runners.get(deploymentId);
        runners.delete(deploymentId);
        await runner?.halt();
        await release(deploymentId);
      });
    },

    running: () => [...runners.keys()],

    leaseOwner: owner,

    async close() {
      closed = true;
      clearTimeout(scanTimer);
      clearInterval(renewTimer);
      for (const id of [...timers.keys()]) stopTimer(id);
      await Promise.all([...new Set([...runners.keys(), ...leases.keys()])].map((id) => this.halt(id)));
    },
  };
}

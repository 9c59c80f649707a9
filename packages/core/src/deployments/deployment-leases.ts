import { randomBytes } from 'node:crypto';
import type { Logger } from '../ports/logger.js';
import type { Store } from '../ports/store.js';

/*
 * This process's leases on deployments, held in the Store (`acquireLease`/`renewLease`): a
 * deployment runs only in the process holding its lease. Every lease held is renewed every
 * `leaseMs / 3`; one not renewed for `leaseMs * 2 / 3` is lost at once (a fence: the holder stops
 * acting `leaseMs / 3` before the lease can expire, so two processes never act at once, even
 * across a partition shorter than the lease). Lease times are wall-clock times.
 */

export interface DeploymentLeasesDeps {
  store: Store;
  logger: Logger;
  /** How long a lease lasts without renewal (default 15 000 ms, at least 30). */
  leaseMs?: number;
  /** This process's lease owner id (default: random). */
  owner?: string;
  /** Wall-clock milliseconds (default `Date.now`). */
  wall?: () => number;
  /**
   * The lease on `id` is gone or may be (not renewed in time, expired, or taken by another
   * process): halt whatever runs the deployment here at once, without touching its orders.
   * Returns whether something was running.
   */
  onLost(id: string): boolean;
}

export interface DeploymentLeases {
  readonly owner: string;
  readonly leaseMs: number;
  /** Whether this process still holds a fresh lease on the deployment (renewed less than `leaseMs * 2/3` ago). */
  holds(id: string): boolean;
  /** Takes (or extends) the deployment's lease for this process; false when another process holds it, the answer came too late, or after `close`. */
  acquire(id: string): Promise<boolean>;
  /** Forgets the lease at once and calls `onLost` (orders, positions and the status stay as they are for the next holder). */
  lose(id: string, reason: string): void;
  /** Gives the lease up (the deployment ended here, or this process closes) so another process may take it at once. Never throws. */
  release(id: string): Promise<void>;
  /** Ids of the deployments this process holds a lease on. */
  held(): string[];
  /** The fields every lease log line carries. */
  fields(id: string): { deploymentId: string; owner: string; pid: number };
  /** Stops renewing, and refuses every later `acquire`; held leases stay until released. */
  close(): void;
}

export function createDeploymentLeases(deps: DeploymentLeasesDeps): DeploymentLeases {
  const { store, logger } = deps;
  const leaseMs = Math.max(30, deps.leaseMs ?? 15_000);
  const fenceMs = Math.floor((leaseMs * 2) / 3);
  const owner = deps.owner ?? `w_${randomBytes(9).toString('base64url')}`;
  const wall = deps.wall ?? Date.now;
  const iso = (ms: number) => new Date(ms).toISOString();
  /** Leases this process holds: when the last successful acquire or renewal was sent, and the fence timer. */
  const leases = new Map<string, { renewedAt: number; fence: NodeJS.Timeout }>();
  let renewTimer: NodeJS.Timeout | undefined;
  let closed = false;
  const fields = (id: string) => ({ deploymentId: id, owner, pid: process.pid });

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

  async function acquire(id: string): Promise<boolean> {
    if (closed) return false;
    const at = wall();
    const ok = await store.deployments.acquireLease(id, owner, iso(at + leaseMs), iso(at));
    // An answer that took too long is no use: the lease may be about to expire (it then lapses).
    if (!ok || closed || wall() - at >= fenceMs) return false;
    const fresh = !leases.has(id);
    keep(id, at);
    if (fresh) logger.info('deployment lease acquired', { ...fields(id), leaseMs });
    return true;
  }

  function lose(id: string, reason: string) {
    const lease = leases.get(id);
    if (!lease) return;
    clearTimeout(lease.fence);
    leases.delete(id);
    const halted = deps.onLost(id);
    logger.warn('deployment lease lost', { ...fields(id), reason, halted });
  }

  async function release(id: string) {
    const lease = leases.get(id);
    if (!lease) return;
    clearTimeout(lease.fence);
    leases.delete(id);
    try {
      await store.deployments.releaseLease(id, owner);
      logger.info('deployment lease released', fields(id));
    } catch (error) {
      logger.warn('Deployment lease release failed', { ...fields(id), error: error instanceof Error ? error.message : String(error) });
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
        (error: unknown) => logger.warn('Deployment lease renewal failed', { ...fields(id), error: error instanceof Error ? error.message : String(error) }),
      );
    }
  }

  return {
    owner,
    leaseMs,
    holds,
    acquire,
    lose,
    release,
    held: () => [...leases.keys()],
    fields,
    close() {
      closed = true;
      clearInterval(renewTimer);
    },
  };
}

import type { Logger } from '../ports/logger.js';
import type { ListPosition, Store } from '../ports/store.js';
import type { DriftService } from './drift-service.js';

export interface DriftRefreshLoopDeps {
  store: Pick<Store, 'deployments'>;
  logger: Logger;
  drift: Pick<DriftService, 'refresh'>;
  /** Between two rounds (default one day, `DriftSettings.refreshIntervalMs`). */
  intervalMs: number;
  /** Running deployments read per page. */
  pageSize: number;
}

/** What one round did. */
export interface DriftRefreshRound {
  /** Reports recomputed or found current, deployments with no candle yet, and refreshes that failed (logged). */
  refreshed: number;
  empty: number;
  failed: number;
}

export interface DriftRefreshLoop {
  /** Runs a round every `intervalMs`, the first one interval after the start (rounds never overlap). */
  start(): void;
  /** One round now: every running deployment's default-window report, refreshed one at a time. */
  tick(): Promise<DriftRefreshRound>;
  /** Stops the timer and waits for a round in flight. Safe to call twice. */
  close(): Promise<void>;
}

/**
 * The daily refresh of drift reports (docs/drift.md): each round recomputes the default-window
 * report of every running deployment that recorded a candle since its stored report, which
 * raises its `deployment.drift` alert when it crosses a threshold. Each replay is metered as its
 * owner's compute, as one they asked for. A refresh replays the deployment's whole recording
 * again (a backtest cannot resume from a saved state yet). Several nodes running it would each
 * replay: run it on one node (`drift.refresh: false` elsewhere).
 */
export function createDriftRefreshLoop(deps: DriftRefreshLoopDeps): DriftRefreshLoop {
  const { store, logger } = deps;
  let timer: ReturnType<typeof setTimeout> | null = null;
  let running: Promise<DriftRefreshRound> | null = null;
  let closed = false;

  async function round(): Promise<DriftRefreshRound> {
    const result: DriftRefreshRound = { refreshed: 0, empty: 0, failed: 0 };
    let after: ListPosition | undefined;
    for (;;) {
      const page = await store.deployments.listByStatus(['running'], deps.pageSize, after);
      for (const deployment of page) {
        if (closed) return result;
        try {
          const report = await deps.drift.refresh(deployment);
          if (report) result.refreshed++;
          else result.empty++;
        } catch (error) {
          result.failed++;
          logger.warn('Drift refresh failed', { deploymentId: deployment.id, error: error instanceof Error ? error.message : String(error) });
        }
      }
      if (page.length < deps.pageSize) return result;
      const last = page[page.length - 1]!;
      after = { createdAt: last.createdAt, id: last.id };
    }
  }

  function tick(): Promise<DriftRefreshRound> {
    running ??= round().finally(() => {
      running = null;
    });
    return running;
  }

  function schedule() {
    if (closed) return;
    timer = setTimeout(() => {
      timer = null;
      void tick()
        .catch((error: unknown) => logger.error('Drift refresh round failed', { error: error instanceof Error ? error.message : String(error) }))
        .finally(schedule);
    }, deps.intervalMs);
    timer.unref?.();
  }

  return {
    start() {
      if (timer || closed) return;
      schedule();
    },
    tick,
    async close() {
      closed = true;
      if (timer) clearTimeout(timer);
      timer = null;
      await running?.catch(() => undefined);
    },
  };
}

import type { Request, RequestHandler, Response } from 'express';
import type { Stratbox } from '@stratbox/core';

export interface HealthOptions {
  /** A check slower than this fails (default 2,000 ms). */
  timeoutMs?: number;
  /** More checks for readiness, by name (a queue's or cache's connection, ...): each resolves when ready and rejects when not. */
  checks?: Record<string, () => Promise<unknown>>;
}

export interface HealthHandlers {
  /** Liveness: 200 `{ "status": "ok" }` while the process runs and serves HTTP. Checks nothing else. */
  liveness: RequestHandler;
  /**
   * Readiness: 200 `{ "status": "ready", "checks": { "store": "ok", ... } }` when the store (a
   * read by id) and every extra check answer within the timeout; else 503
   * `{ "status": "unavailable", "checks": { "store": "failed", ... } }`, and a `warn` log line
   * per failed check. Never says why in the body.
   */
  readiness: RequestHandler;
}

/** An id no user has: readiness reads it to prove the store answers queries. */
const PROBE_USER_ID = 'usr_readinessprobe';

/**
 * Liveness and readiness handlers for a load balancer or orchestrator, to mount where the host
 * wants them: `app.get('/healthz', health.liveness); app.get('/readyz', health.readiness)`.
 */
export function createHealthHandlers(stratbox: Stratbox, options: HealthOptions = {}): HealthHandlers {
  const timeoutMs = options.timeoutMs ?? 2_000;
  const checks: Record<string, () => Promise<unknown>> = {
    store: () => stratbox.store.users.findById(PROBE_USER_ID),
    ...options.checks,
  };
  const answer = (res: Response, status: number, body: unknown) => {
    res.setHeader('Cache-Control', 'no-store');
    res.status(status).json(body);
  };
  return {
    liveness: (_req: Request, res: Response) => answer(res, 200, { status: 'ok' }),
    readiness: (_req: Request, res: Response) => {
      const names = Object.keys(checks);
      void Promise.all(names.map((name) => withTimeout(Promise.resolve().then(checks[name]!), timeoutMs))).then((outcomes) => {
        const results: Record<string, 'ok' | 'failed'> = {};
        outcomes.forEach((error, i) => {
          const name = names[i]!;
          results[name] = error === null ? 'ok' : 'failed';
          if (error !== null) stratbox.logger.warn('Readiness check failed', { check: name, error, requestId: res.locals.requestId });
        });
        const ready = Object.values(results).every((result) => result === 'ok');
        answer(res, ready ? 200 : 503, { status: ready ? 'ready' : 'unavailable', checks: results });
      });
    },
  };
}

/** Null when `work` resolves within `ms`, else the reason it did not, as a string. */
function withTimeout(work: Promise<unknown>, ms: number): Promise<string | null> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(`no answer within ${ms} ms`), ms);
  });
  const outcome = work.then(
    () => null,
    (error: unknown) => (error instanceof Error ? error.message : String(error)),
  );
  return Promise.race([outcome, timeout]).finally(() => clearTimeout(timer));
}

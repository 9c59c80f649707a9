import type { z } from 'zod';
import { CreateOptimizationBody, ListTrialsQuery, type OptimizationStatus } from '@stratbox/contract';
import { StratboxError, notFound } from '../errors/stratbox-error.js';
import { withRunOnlyErrors } from '../marketplace/licences.js';
import type { Clock } from '../ports/clock.js';
import type { EventBus } from '../ports/event-bus.js';
import type { JobQueue } from '../ports/job-queue.js';
import type { Logger } from '../ports/logger.js';
import { TIMEFRAME_MS } from '../ports/market-data.js';
import type { Store } from '../ports/store.js';
import type { OptimizationRecord, OptimizationSpec } from '../ports/store-optimizations.js';
import type { ParamSpec } from '../sandbox/strategy-meta.js';
import { pickStrategyRunner, type StrategyRunnerDep } from '../backtests/strategy-runner-dep.js';
import { checkRunShape, resolveRunRequest } from '../backtests/run-request.js';
import { paginate } from '../util/cursor.js';
import { newId } from '../util/ids.js';
import { parseInput } from '../util/validate.js';
import { planOptimization, trialParams } from './optimization-plan.js';
import { optimizationProgressChannel, toOptimizationDetail, toOptimizationProgressEvent, toOptimizationSummary, toTrialView } from './optimization-views.js';

export const OPTIMIZATION_JOB = 'optimization';

export type OptimizationServiceDeps = StrategyRunnerDep & {
  store: Store;
  clock: Clock;
  logger: Logger;
  events: EventBus;
  queue: JobQueue;
  /** Called before an optimization of `trials` trials is created; throws to refuse (plan limits). */
  beforeCreate?: (userId: string, trials: number) => Promise<void>;
};

export type OptimizationService = ReturnType<typeof createOptimizationService>;

const ACTIVE: readonly OptimizationStatus[] = ['queued', 'running'];

/** An offset cursor of a trials page: the position of its first row, base-10. */
function offsetOf(cursor: string | undefined): number {
  if (cursor === undefined) return 0;
  const offset = /^\d{1,9}$/.test(cursor) ? Number(cursor) : Number.NaN;
  if (!Number.isSafeInteger(offset))
    throw new StratboxError('VALIDATION_FAILED', 'Invalid cursor', [{ path: 'query.cursor', message: 'Not a cursor of this list' }]);
  return offset;
}

/**
 * Optimizations (docs/research.md): checked and queued on create, run by the optimization worker
 * (`createOptimizationWorker`), listed, read with their results and trials, cancellable.
 */
export function createOptimizationService(deps: OptimizationServiceDeps) {
  const { store, clock, events, queue } = deps;
  const runner = pickStrategyRunner(deps, 'createOptimizationService');

  async function load(userId: string, id: string): Promise<OptimizationRecord> {
    const record = await store.optimizations.findById(userId, id);
    if (!record) throw notFound('Optimization', id);
    return record;
  }

  return {
    /**
     * Checks the request as a backtest's (strategy or bought listing, params, timeframe, range)
     * plus its search: the space against `meta.params` (every value a backtest would accept), no
     * parameter both fixed and searched, the validation windows long enough; refuses with 402 when
     * the plan allows fewer trials or no compute is left; then queues it (202).
     */
    async create(userId: string, input: z.input<typeof CreateOptimizationBody>) {
      const body = parseInput(CreateOptimizationBody, input, 'body');
      const { runnable, marketType, info } = await resolveRunRequest(store, runner, userId, body);
      const { timeframe } = checkRunShape(body, info);
      const spec: OptimizationSpec = {
        symbols: body.symbols,
        startDate: body.startDate,
        endDate: body.endDate,
        timeframe,
        marketType,
        fees: body.fees,
        leverage: body.leverage,
        slippage: body.slippage,
        initialCapital: body.initialCapital,
        params: body.params,
        funding: body.funding && marketType === 'LINEAR',
        searchSpace: body.searchSpace,
        method: body.method,
        objective: body.objective,
        constraints: body.constraints,
        validation: body.validation,
      };
      const plan = withRunOnlyErrors(runnable.canReadSource, async () => {
        const planned = planOptimization(spec, info.params as Record<string, ParamSpec> | undefined, TIMEFRAME_MS[timeframe]);
        // The first point with the fixed params must be what a backtest accepts (required params, their rules).
        runner.checkParams(info, trialParams(spec, planned.points[0]!));
        return planned;
      });
      const { trialsTotal } = await plan;
      await deps.beforeCreate?.(userId, trialsTotal);
      const record: OptimizationRecord = {
        id: newId('optimization'),
        userId,
        strategyId: runnable.strategyId,
        strategyVersion: runnable.version,
        status: 'queued',
        progress: 0,
        trialsDone: 0,
        trialsTotal,
        spec,
        best: null,
        computeMs: 0,
        attempts: 0,
        createdAt: clock.now().toISOString(),
        startedAt: null,
        finishedAt: null,
        error: null,
      };
      try {
        await store.optimizations.insert(record);
      } catch (error) {
        // An optimization belongs to its strategy (deleted with it): one deleted meanwhile is not found.
        if (!(await store.strategies.findById(runnable.ownerId, runnable.strategyId))) throw notFound('Strategy', body.strategyId);
        throw error;
      }
      try {
        await queue.enqueue({ name: OPTIMIZATION_JOB, id: record.id, group: userId, payload: {} });
      } catch (error) {
        deps.logger.error('Could not enqueue an optimization', { optimizationId: record.id, error: error instanceof Error ? error.message : String(error) });
        const failed = await store.optimizations.transition(record.id, ['queued'], {
          status: 'failed',
          error: { code: 'UNAVAILABLE', message: 'The optimization could not be queued; nothing ran. Try again.' },
          finishedAt: clock.now().toISOString(),
        });
        if (failed) events.publish(optimizationProgressChannel(record.id), toOptimizationProgressEvent(failed));
        throw new StratboxError('UNAVAILABLE', 'The job queue is unavailable; nothing was started. Try again.');
      }
      return toOptimizationSummary(record);
    },

    async list(
      userId: string,
      query: { strategyId?: string | undefined; status?: OptimizationStatus | undefined; limit?: number | undefined; cursor?: string | undefined },
    ) {
      const filter = { ...(query.strategyId ? { strategyId: query.strategyId } : {}), ...(query.status ? { status: query.status } : {}) };
      const page = await paginate(query, (p) => store.optimizations.list(userId, p, filter));
      return { optimizations: page.items.map(toOptimizationSummary), nextCursor: page.nextCursor };
    },

    /** The optimization, its best trial so far and, once completed, its results. */
    async get(userId: string, id: string) {
      const record = await load(userId, id);
      const results = record.status === 'completed' ? await store.optimizations.getResult(userId, id) : null;
      return toOptimizationDetail(record, results);
    },

    /** A page of the trials stored so far, best first (`sort: 'objective'`) or in search order. */
    async trials(userId: string, id: string, input: z.input<typeof ListTrialsQuery>) {
      const query = parseInput(ListTrialsQuery, input, 'query');
      await load(userId, id);
      const offset = offsetOf(query.cursor);
      const limit = query.limit ?? 50;
      const rows = await store.optimizations.listTrials(userId, id, {
        sort: query.sort,
        ...(query.fold === undefined ? {} : { fold: query.fold }),
        offset,
        limit: limit + 1,
      });
      const more = rows.length > limit;
      return { trials: rows.slice(0, limit).map(toTrialView), nextCursor: more ? String(offset + limit) : null };
    },

    /** Cancels a queued or running optimization: its trials stop within a second; those done are kept. A finished one is a 409. */
    async cancel(userId: string, id: string) {
      const record = await load(userId, id);
      const refuse = (status: string) =>
        new StratboxError('CONFLICT', `Optimization ${id} is ${status}; only queued or running optimizations can be cancelled`);
      if (!ACTIVE.includes(record.status)) throw refuse(record.status);
      const cancelled = await store.optimizations.transition(id, ACTIVE, { status: 'cancelled', finishedAt: clock.now().toISOString() });
      if (!cancelled) throw refuse((await load(userId, id)).status);
      await queue.cancel(id);
      events.publish(optimizationProgressChannel(id), toOptimizationProgressEvent(cancelled));
      return toOptimizationSummary(cancelled);
    },

    /** The final state of a finished optimization, or null while it runs (for late WebSocket subscribers); null when not the caller's. */
    async finalEvent(userId: string, id: string) {
      const record = await store.optimizations.findById(userId, id);
      if (!record) return null;
      return { final: ACTIVE.includes(record.status) ? undefined : toOptimizationProgressEvent(record) };
    },
  };
}

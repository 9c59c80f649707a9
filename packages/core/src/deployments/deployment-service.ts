import type { z } from 'zod';
import { listDeploymentOrders } from './deployment-orders.js';
import { ACTIVE_DEPLOYMENT_STATUSES, CreateDeploymentBody, RestartDeploymentBody, type DeploymentStatus } from '@stratbox/contract';
import type { StrategyRunner } from '../ports/strategy-runner.js';
import { pickStrategyRunner, type StrategyRunnerDep } from '../backtests/strategy-runner-dep.js';
import type { CredentialService } from '../credentials/credential-service.js';
import { marketTypeOfSymbols } from '../exchanges/market-symbol.js';
import { StratboxError, notFound } from '../errors/stratbox-error.js';
import { loadRunnableSource, resolveRunnableStrategy } from '../marketplace/licences.js';
import type { Clock } from '../ports/clock.js';
import { TIMEFRAME_MS } from '../ports/market-data.js';
import { ExchangeGatewayError, type ExchangePosition } from '../ports/exchange-gateway.js';
import type { DeploymentRecord, Store, StoreRepositories } from '../ports/store.js';
import { paginate, paginateLog } from '../util/cursor.js';
import { newId } from '../util/ids.js';
import type { DeploymentLogWriter } from './deployment-log.js';
import { assertLeverageSettings } from './deployment-leverage-settings.js';
import { toDeploymentView, toLogEntry, toOrderView } from './deployment-views.js';
import { realizedPnl } from './realized-pnl.js';
import type { DeploymentSupervisor } from './supervisor.js';
import { withRunOnlyErrors } from '../marketplace/licences.js';
import { parseInput } from '../util/validate.js';

/** What `createDeploymentService` takes; of the strategy runner it uses `inspect` and `checkParams` (meta and params at create). */
export type DeploymentServiceDeps = StrategyRunnerDep<Pick<StrategyRunner, 'inspect' | 'checkParams'>> & {
  store: Store;
  clock: Clock;
  credentials: CredentialService;
  supervisor: DeploymentSupervisor;
  log: DeploymentLogWriter;
  /** Throws 402 PLAN_LIMIT_EXCEEDED when the user has no live bot slot left; called inside the create (and restart) transaction, after `users.lock`. */
  assertDeploymentSlot: (userId: string, tx: StoreRepositories) => Promise<void>;
  /**
   * How long stop and delete wait for another process, the one running the deployment, to
   * finish a stop (it does so at its next poll). Default 15 000 ms; past it, stop answers the
   * deployment still `stopping` and delete answers 503.
   */
  stopWaitMs?: number;
};

export type DeploymentService = ReturnType<typeof createDeploymentService>;

const ACTIVE: readonly DeploymentStatus[] = ACTIVE_DEPLOYMENT_STATUSES;
const DEFAULT_LOG_LIMIT = 200;

/** Query of a log page: `since` (inclusive), `cursor` (the previous page's), `limit` (default 200). */
export interface LogPageQuery {
  since?: string | undefined;
  cursor?: string | undefined;
  limit?: number | undefined;
}

/**
 * A live deployment acts on its exchange account's orders and positions per symbol (it stops by
 * closing them), so two active deployments never share a credential and a symbol: 409 names the
 * one already there. Call inside the transaction that locked the credential row.
 */
async function assertSymbolsFree(tx: StoreRepositories, userId: string, credentialId: string, symbols: readonly string[], exceptId?: string) {
  for (const d of await tx.deployments.listActive(userId, { credentialId })) {
    const symbol = d.id === exceptId ? undefined : d.symbols.find((s) => symbols.includes(s));
    if (symbol !== undefined) {
      throw new StratboxError(
        'CONFLICT',
        `Deployment ${d.id} already trades ${symbol} with credential ${credentialId}; one deployment per account and symbol, so their orders and positions stay apart`,
        { deploymentId: d.id, symbol },
      );
    }
  }
}

/**
 * Live deployments, for the API: every method is scoped to the caller (another user's
 * deployment is NOT_FOUND, like a missing one). Create answers `starting` and hands the
 * deployment to the supervisor; stop, restart and delete move it with compare-and-set
 * transitions, so concurrent requests on one deployment never leave it in two states.
 */
export function createDeploymentService(deps: DeploymentServiceDeps) {
  const { store, clock, supervisor } = deps;
  const runner = pickStrategyRunner(deps, 'createDeploymentService');

  async function load(userId: string, id: string): Promise<DeploymentRecord> {
    const record = await store.deployments.findById(userId, id);
    if (!record) throw notFound('Deployment', id);
    return record;
  }

  /** Stops a deployment (whatever its status allows) and resolves with its record afterwards. */
  async function stopRecord(record: DeploymentRecord): Promise<DeploymentRecord> {
    const time = clock.now().toISOString();
    if (record.status === 'stopped') return record;
    if (record.status !== 'stopping') {
      const stopping = await store.deployments.transition(record.id, ['starting', 'running', 'halted', 'failed'], { status: 'stopping', updatedAt: time });
      if (!stopping) {
        // Someone else moved it first: act on what it is now.
        const now = await load(record.userId, record.id);
        return now.status === record.status ? now : stopRecord(now);
      }
      await deps.log.write(stopping, 'info', 'Stop requested');
      record = stopping;
    }
    await supervisor.stop(record);
    // Another process may hold the deployment: it carries the stop out at its next poll.
    const deadline = Date.now() + (deps.stopWaitMs ?? 15_000);
    let after = await load(record.userId, record.id);
    while (after.status === 'stopping' && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      after = await load(record.userId, record.id);
    }
    return after;
  }

  /** One page of the deployment's log (as `logs`) with the cursor of the next page, or null on the last one. */
  async function logPage(userId: string, id: string, query: LogPageQuery = {}) {
    await load(userId, id);
    const since = query.since;
    const page = await paginateLog(query, (p) => store.deploymentLogs.list(userId, id, { ...p, ...(since ? { since } : {}) }), DEFAULT_LOG_LIMIT);
    return { logs: page.items.map(toLogEntry), nextCursor: page.nextCursor };
  }

  return {
    async create(userId: string, input: z.input<typeof CreateDeploymentBody>) {
      const body = parseInput(CreateDeploymentBody, input, 'body');
      const runnable = await resolveRunnableStrategy(store, userId, body.strategyId);
      const credential = await deps.credentials.get(userId, body.credentialId);
      if (new Set(body.symbols).size !== body.symbols.length) {
        throw new StratboxError('VALIDATION_FAILED', 'Each symbol may appear once', [{ path: 'body.symbols', message: 'Duplicate symbol' }]);
      }
      if (marketTypeOfSymbols(body.symbols) === null) {
        throw new StratboxError('VALIDATION_FAILED', 'Symbols of one deployment are all perpetuals (BASE/QUOTE:SETTLE) or all spot (BASE/QUOTE)', [
          { path: 'body.symbols', message: 'Mixed market types' },
        ]);
      }
      assertLeverageSettings(body, marketTypeOfSymbols(body.symbols), credential.exchange);
      const { source } = await loadRunnableSource(store, userId, runnable.strategyId, runnable.version);
      const info = await withRunOnlyErrors(runnable.canReadSource, () => runner.inspect(source));
      await withRunOnlyErrors(runnable.canReadSource, () => runner.checkParams(info, body.params));
      if (info.timeframe !== undefined && !(info.timeframe in TIMEFRAME_MS)) {
        throw new StratboxError('VALIDATION_FAILED', `Unsupported timeframe ${info.timeframe}`, [
          { path: 'meta.timeframe', message: 'Not a supported timeframe' },
        ]);
      }
      const time = clock.now().toISOString();
      const record: DeploymentRecord = {
        id: newId('deployment'),
        userId,
        strategyId: runnable.strategyId,
        strategyVersion: runnable.version,
        credentialId: body.credentialId,
        symbols: body.symbols,
        params: body.params,
        status: 'starting',
        error: null,
        createdAt: time,
        updatedAt: time,
        startedAt: null,
        stoppedAt: null,
        risk: body.risk ?? null,
        leverage: body.leverage ?? null,
        marginMode: body.marginMode ?? null,
        halt: null,
        preflight: null,
        reconciliation: null,
        riskState: null,
      };
      await store.transaction(async (tx) => {
        // Lock the user (the live bot limit is per user, so creates on other credentials wait too),
        // then the credential row (one deployment per credential and symbol), then count and insert.
        await tx.users.lock(userId);
        if (!(await tx.credentials.findById(userId, body.credentialId, { forUpdate: true }))) throw notFound('Credential', body.credentialId);
        await deps.assertDeploymentSlot(userId, tx);
        await assertSymbolsFree(tx, userId, body.credentialId, body.symbols);
        await tx.deployments.insert(record);
      });
      await deps.log.write(record, 'info', 'Deployment created');
      void supervisor.launch(record);
      return toDeploymentView(record);
    },

    async list(userId: string, query: { limit?: number | undefined; cursor?: string | undefined }) {
      const page = await paginate(query, (p) => store.deployments.list(userId, p));
      return { deployments: page.items.map(toDeploymentView), nextCursor: page.nextCursor };
    },

    async get(userId: string, id: string) {
      return toDeploymentView(await load(userId, id));
    },

    /** The deployment's log, oldest first, at or after `since`, after `cursor`, at most `limit` (default 200): one page, without its cursor. */
    async logs(userId: string, id: string, query: LogPageQuery = {}) {
      return (await logPage(userId, id, query)).logs;
    },

    logPage,

    /** The deployment's orders, newest first (by creation), in pages, each as channel `deployment:<id>:orders` carries it. */
    async orders(userId: string, id: string, query: { limit?: number | undefined; cursor?: string | undefined } = {}) {
      await load(userId, id);
      const page = await paginate(query, (p) => store.orders.listByDeployment(userId, id, p));
      return { orders: page.items.map(toOrderView), nextCursor: page.nextCursor };
    },

    /**
     * Open positions of the deployment's symbols, read from the exchange unless the deployment is
     * stopped (its stop closed them) or its credential was deleted, with the realized P&L of the
     * deployment's own fills per symbol (`realizedPnl`). Exchange failures answer UNAVAILABLE.
     */
    async positions(userId: string, id: string) {
      const record = await load(userId, id);
      const orders = await listDeploymentOrders(store, userId, id);
      const live = record.status !== 'stopped' && (await store.credentials.findById(userId, record.credentialId)) !== null;
      let positions: ExchangePosition[] = [];
      if (live) {
        try {
          positions = await supervisor.fetchPositions(record);
        } catch (error) {
          if (!(error instanceof ExchangeGatewayError)) throw error;
          throw new StratboxError('UNAVAILABLE', `Could not read the positions of deployment ${id} from ${error.exchange}: ${error.message}`, {
            exchange: error.exchange,
            reason: error.reason,
          });
        }
      }
      const bySymbol = realizedPnl(record.symbols, orders);
      const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
      return {
        deploymentId: record.id,
        status: record.status,
        asOf: clock.now().toISOString(),
        live,
        positions: positions
          .filter((p) => record.symbols.includes(p.symbol))
          .map((p) => ({
            symbol: p.symbol,
            side: p.side,
            quantity: p.quantity,
            entryPrice: p.entryPrice,
            markPrice: p.markPrice,
            unrealizedPnl: p.unrealizedPnl,
            leverage: p.leverage,
            liquidationPrice: p.liquidationPrice,
          })),
        realizedPnl: sum(bySymbol.map((s) => s.realizedPnl)),
        fees: sum(bySymbol.map((s) => s.fees)),
        unrealizedPnl: sum(positions.map((p) => p.unrealizedPnl ?? 0)),
        bySymbol,
      };
    },

    /**
     * Stops gracefully: the strategy stops, open orders are cancelled, positions are closed with
     * reduce-only market orders, then `stopped`. Stopping a stopped deployment changes nothing.
     * If the exchange does not let it finish, the deployment is `failed` with the reason; stop
     * again to retry.
     */
    async stop(userId: string, id: string) {
      return toDeploymentView(await stopRecord(await load(userId, id)));
    },

    /**
     * Restarts a running, halted, stopped or failed deployment through `starting` (its halt is
     * cleared). `risk` replaces its risk limits (`null` removes them; absent keeps them). A
     * stopped or failed one needs a free live bot slot.
     */
    async restart(userId: string, id: string, input?: z.input<typeof RestartDeploymentBody>) {
      const body = parseInput(RestartDeploymentBody, input, 'body');
      const record = await load(userId, id);
      if (record.status === 'stopping' || record.status === 'starting') {
        throw new StratboxError('CONFLICT', `Deployment ${id} is ${record.status}; restart it once that has finished`);
      }
      const time = clock.now().toISOString();
      const restarted = await store.transaction(async (tx) => {
        if (record.status !== 'running' && record.status !== 'halted') {
          await tx.users.lock(userId);
          await tx.credentials.findById(userId, record.credentialId, { forUpdate: true });
          await deps.assertDeploymentSlot(userId, tx);
          await assertSymbolsFree(tx, userId, record.credentialId, record.symbols, id);
        }
        return tx.deployments.transition(id, [record.status], {
          status: 'starting',
          error: null,
          halt: null,
          // The guard measures from the new start: no peak or day kept from before.
          riskState: null,
          ...(body?.risk === undefined ? {} : { risk: body.risk }),
          stoppedAt: null,
          startedAt: null,
          updatedAt: time,
        });
      });
      if (!restarted) {
        const now = await load(userId, id);
        throw new StratboxError('CONFLICT', `Deployment ${id} is ${now.status}; it changed while restarting`);
      }
      await deps.log.write(restarted, 'info', 'Restart requested');
      await supervisor.halt(id);
      void supervisor.launch(restarted);
      return toDeploymentView(restarted);
    },

    /** Stops the deployment if it is active, then removes it with its orders, logs and drift recording. */
    async delete(userId: string, id: string) {
      let record = await load(userId, id);
      if (ACTIVE.includes(record.status)) {
        record = await stopRecord(record);
        if (record.status !== 'stopped') {
          throw new StratboxError(
            'UNAVAILABLE',
            `Deployment ${id} could not be stopped cleanly (${record.error?.message ?? record.status}); it was kept. Try again.`,
          );
        }
      }
      await supervisor.halt(id);
      // Its drift recording, reports and thresholds go with it, in the same transaction.
      const deleted = await store.transaction(async (tx) => {
        if (!(await tx.deployments.delete(userId, id))) return false;
        await tx.deploymentRecordings.deleteByDeployment(id);
        return true;
      });
      if (!deleted) throw notFound('Deployment', id);
    },
  };
}

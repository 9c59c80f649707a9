import type { DeploymentHalt, ReconciliationReport } from '@stratbox/contract';
import { listDeploymentOrders } from './deployment-orders.js';
import { clientOrderPrefix } from '../exchanges/client-order-id.js';
import { parseMarketSymbol } from '../exchanges/market-symbol.js';
import type { Clock } from '../ports/clock.js';
import { ExchangeGatewayError, type ExchangeGateway, type ExchangeOrder } from '../ports/exchange-gateway.js';
import { OPEN_ORDER_STATUSES, type DeploymentRecord, type OrderRecord, type Store } from '../ports/store.js';
import type { DeploymentLogWriter } from './deployment-log.js';
import { describeOrder, isOpen, type OrderSync } from './order-sync.js';
import { haltDeployment } from './deployment-halt.js';
import { spotAccountOf } from './spot-positions.js';
import type { Logger } from '../ports/logger.js';

/*
 * Continuous reconciliation of one deployment with its exchange account (docs/live-deployments.md,
 * "Reconciliation"). A run compares the Store with the exchange and applies this policy:
 * - `unknown_outcome`: an order written `pending` whose send outcome is unknown stays pending and
 *   is looked up by its client order id, never sent again; while it is not found it is reported
 *   (and rejected by the placement's give-up rule once it is old enough);
 * - `missing_order`: an order open in the Store that the exchange knows neither by its id nor by
 *   its client order id is marked `cancelled`, and the strategy is told (`onOrder`);
 * - `unknown_order`: an open order on the exchange whose client order id carries this
 *   deployment's prefix but which the Store lacks (left by a crashed node, a lost write) is
 *   cancelled on the exchange: the deployment never trades on an order it cannot account for;
 * - `position`: a position that differs from what the deployment's own fills explain (changed by
 *   hand, liquidated, another bot on the account) halts the deployment (`running -> halted`,
 *   reason `positionMismatch`): it enters no more until its owner restarts or stops it. Symbols
 *   with an order of unknown outcome are not compared (that order may explain the difference).
 * Each run writes the deployment's `reconciliation` report (last run, runs, the latest 20
 * mismatches, the order stream's state).
 */

export type ReconciliationMismatch = ReconciliationReport['mismatches'][number];
export type StreamState = ReconciliationReport['stream'];

/** Mismatches kept on the report. */
export const MAX_MISMATCHES = 20;

/**
 * The report's mismatches with `added` at the end: one found again (same kind, symbol, order and
 * message: an order whose outcome stays unknown run after run) moves to the end with its new
 * time instead of filling the list; the newest MAX_MISMATCHES are kept.
 */
export function mergeMismatches(before: readonly ReconciliationMismatch[], added: readonly ReconciliationMismatch[]): ReconciliationMismatch[] {
  const same = (a: ReconciliationMismatch, b: ReconciliationMismatch) =>
    a.kind === b.kind && a.symbol === b.symbol && a.orderId === b.orderId && a.message === b.message;
  const kept = before.filter((m) => !added.some((a) => same(a, m)));
  return [...kept, ...added].slice(-MAX_MISMATCHES);
}

export interface ReconcilerDeps {
  store: Store;
  clock: Clock;
  logger: Logger;
  log: DeploymentLogWriter;
  sync: OrderSync;
}

export interface ReconcileResult {
  /** The deployment as the Store holds it after the run (halted, with its report). */
  deployment: DeploymentRecord;
  /** Orders whose status the run changed (final ones go to the strategy's `onOrder`). */
  changed: OrderRecord[];
  mismatches: ReconciliationMismatch[];
  halted: boolean;
}

export interface Reconciler {
  /** One run; exchange errors propagate (the runner counts them as a failed cycle). */
  run(deployment: DeploymentRecord, gateway: ExchangeGateway, options: { stream: StreamState }): Promise<ReconcileResult>;
  /**
   * Takes the account's positions as they are now as explained: called when the owner restarts a
   * deployment that has traded before (a restart after a `positionMismatch` halt accepts the
   * position). A new deployment takes nothing: a position it did not open is a mismatch. What is
   * accepted is written on the record (`acceptedPositions`, null when nothing is), and a runner
   * resumed after a restart of the service reads it from there at its first run.
   */
  acceptPositions(deployment: DeploymentRecord, gateway: ExchangeGateway): Promise<void>;
  /** Adds one mismatch found outside a run (dust at an exit) to the report. */
  note(deployment: DeploymentRecord, mismatch: ReconciliationMismatch): Promise<void>;
}

/** Signed net quantity the deployment's own fills explain, by symbol. */
export async function positionsFromFills(store: Store, deployment: DeploymentRecord): Promise<Map<string, number>> {
  const net = new Map<string, number>();
  for (const o of await listDeploymentOrders(store, deployment.userId, deployment.id)) {
    if (o.filledQuantity > 0) net.set(o.symbol, (net.get(o.symbol) ?? 0) + (o.side === 'buy' ? 1 : -1) * o.filledQuantity);
  }
  return net;
}

const isDerivative = (symbol: string) => parseMarketSymbol(symbol)?.marketType === 'LINEAR';

export function createReconciler(deps: ReconcilerDeps): Reconciler {
  const { store, clock, log, sync } = deps;
  const now = () => clock.now().toISOString();
  /**
   * Signed quantity by symbol that the fills do not explain but the owner accepted at a restart:
   * kept on the record (`acceptedPositions`), read from it at the first run of a resumed runner.
   */
  let accepted: Map<string, number> | undefined;
  const acceptedOf = (deployment: DeploymentRecord) => {
    accepted ??= new Map(Object.entries(deployment.acceptedPositions ?? {}));
    return accepted;
  };
  /** The report as this runner last wrote it (undefined: not yet, then the record's is the latest). */
  let report: ReconciliationReport | null | undefined;

  async function write(deployment: DeploymentRecord, next: ReconciliationReport): Promise<DeploymentRecord | null> {
    report = next;
    return store.deployments.update(deployment.id, { reconciliation: next });
  }

  /** An open order the exchange knows under neither id: cancelled in the Store. */
  async function markMissing(order: OrderRecord): Promise<OrderRecord | null> {
    return store.orders.update(order.id, { status: 'cancelled', updatedAt: now() }, { expectedStatus: OPEN_ORDER_STATUSES });
  }

  /** Brings one Store order up to date; null when the exchange has no such order. */
  async function refresh(deployment: DeploymentRecord, gateway: ExchangeGateway, order: OrderRecord): Promise<OrderRecord | null> {
    try {
      return await sync.reconcile(deployment, gateway, order);
    } catch (error) {
      if (!(error instanceof ExchangeGatewayError && error.reason === 'order_not_found')) throw error;
      const byClientId = await gateway.fetchOrderByClientId(order.clientOrderId, order.symbol, { type: order.type });
      return byClientId ? sync.reconcile(deployment, gateway, { ...order, status: 'pending', exchangeOrderId: null }) : null;
    }
  }

  return {
    async note(deployment, mismatch) {
      const before = report === undefined ? (deployment.reconciliation ?? null) : report;
      await write(deployment, {
        lastRunAt: before?.lastRunAt ?? null,
        runs: before?.runs ?? 0,
        mismatches: mergeMismatches(before?.mismatches ?? [], [mismatch]),
        stream: before?.stream ?? 'none',
      });
    },

    async acceptPositions(deployment, gateway) {
      const next = new Map<string, number>();
      const traded = await store.orders.listByDeployment(deployment.userId, deployment.id, { limit: 1 });
      const symbols = deployment.symbols.filter(isDerivative);
      if (traded.length > 0 && symbols.length > 0) {
        const expected = await positionsFromFills(store, deployment);
        const positions = await gateway.fetchPositions(symbols);
        for (const symbol of symbols) {
          const p = positions.find((x) => x.symbol === symbol);
          const actual = p ? (p.side === 'long' ? 1 : -1) * p.quantity : 0;
          const difference = Number((actual - (expected.get(symbol) ?? 0)).toFixed(12));
          if (difference !== 0) next.set(symbol, difference);
        }
      }
      // Spot: a shortfall of the account's base below what the fills leave (spot-positions.ts); more base is the owner's.
      for (const symbol of traded.length > 0 ? deployment.symbols.filter((s) => !isDerivative(s)) : []) {
        const spot = await spotAccountOf(gateway, symbol);
        const short = spot ? Number(Math.min(0, spot.total - spot.own).toFixed(12)) : 0;
        if (short !== 0) next.set(symbol, short);
      }
      accepted = next;
      // Kept on the record, so a restart of the service takes the same positions as explained; cleared when nothing is accepted.
      const kept = next.size > 0 ? Object.fromEntries(next) : null;
      if (kept !== null || (deployment.acceptedPositions ?? null) !== null) await store.deployments.update(deployment.id, { acceptedPositions: kept });
    },

    async run(deployment, gateway, options) {
      const at = now();
      const mismatches: ReconciliationMismatch[] = [];
      const changed: OrderRecord[] = [];
      const note = async (m: Omit<ReconciliationMismatch, 'at'>) => {
        mismatches.push({ ...m, at });
        await log.write(deployment, 'warn', `Reconciliation: ${m.message}`);
      };

      // 1. The Store's open orders, as the exchange knows them.
      const unresolved = new Set<string>();
      for (const order of await store.orders.listOpen(deployment.id)) {
        const after = await refresh(deployment, gateway, order);
        if (after === null) {
          const cancelled = await markMissing(order);
          if (cancelled) {
            changed.push(cancelled);
            sync.publish(deployment, cancelled);
            await note({
              kind: 'missing_order',
              symbol: order.symbol,
              orderId: order.id,
              message: `${describeOrder(order)} is open in the Store but the exchange has no such order: marked cancelled`,
            });
          }
          continue;
        }
        if (after.status !== order.status) changed.push(after);
        if (after.status === 'pending') {
          unresolved.add(after.symbol);
          await note({
            kind: 'unknown_outcome',
            symbol: after.symbol,
            orderId: after.id,
            message: `${describeOrder(after)} was sent with an unknown outcome and is not on the exchange yet; it is looked up by its client order id, never sent again`,
          });
        }
      }

      // 2. The exchange's open orders that carry this deployment's prefix but that the Store lacks.
      const prefix = clientOrderPrefix(deployment.id);
      for (const symbol of deployment.symbols) {
        const open: ExchangeOrder[] = await gateway.fetchOpenOrders(symbol);
        for (const o of open) {
          if (!o.clientOrderId?.startsWith(prefix)) continue;
          if (await store.orders.findByClientOrderId(o.clientOrderId)) continue;
          let outcome = 'cancelled it';
          try {
            await gateway.cancelOrder(o.exchangeOrderId, o.symbol, { type: o.type });
          } catch (error) {
            if (!(error instanceof ExchangeGatewayError && (error.reason === 'order_not_found' || error.reason === 'invalid_order'))) throw error;
            outcome = 'it was gone before the cancel';
          }
          await note({
            kind: 'unknown_order',
            symbol: o.symbol,
            orderId: null,
            message: `the exchange has an open ${o.side} ${o.quantity} ${o.symbol} ${o.type} order (client id ${o.clientOrderId}) of this deployment that the Store lacks: ${outcome}`,
          });
        }
      }

      // 3. Positions against the deployment's own fills.
      let current = deployment;
      let halted = false;
      const symbols = deployment.symbols.filter((s) => !unresolved.has(s));
      if (symbols.length > 0) {
        const expected = await positionsFromFills(store, deployment);
        const derivatives = symbols.filter(isDerivative);
        const positions = derivatives.length > 0 ? await gateway.fetchPositions(derivatives) : [];
        for (const symbol of symbols) {
          // Spot: the account's base against what the deployment's own fills leave it (spot-positions.ts); only a shortfall counts.
          const spot = isDerivative(symbol) ? null : await spotAccountOf(gateway, symbol);
          if (!isDerivative(symbol) && !spot) continue;
          const p = positions.find((x) => x.symbol === symbol);
          const actual = spot ? spot.total : p ? (p.side === 'long' ? 1 : -1) * p.quantity : 0;
          const want = Number(((spot ? spot.own : (expected.get(symbol) ?? 0)) + (acceptedOf(deployment).get(symbol) ?? 0)).toFixed(12));
          const step = (await gateway.market(symbol).catch(() => null))?.amountStep ?? 1e-9;
          if (spot ? actual > want - step / 2 : Math.abs(actual - want) < step / 2) continue;
          const message = spot
            ? `the account holds ${actual} ${spot.base} but the deployment's own ${symbol} fills leave it ${want}: sold or moved outside the deployment`
            : `the ${symbol} position on the exchange is ${actual} but the deployment's own fills explain ${want}: changed outside the deployment`;
          await note({ kind: 'position', symbol, orderId: null, message });
          if (!halted) {
            const halt: DeploymentHalt = { reason: 'positionMismatch', message: `The${message.slice(3)}`, value: actual, limit: null, at };
            // Halted: it enters no more. Its resting entry orders are cancelled; exits (reduce-only) and orders of unknown outcome stay.
            const outcome = await haltDeployment(deps, current, gateway, halt, {
              flatten: false,
              keep: (order) => order.reduceOnly || order.status === 'pending',
              headline: `Position mismatch: ${message}`,
              describe: 'cancelling its entry orders and keeping its positions; restart it to accept the position, or stop it to close it',
            });
            if (outcome) {
              current = outcome.deployment;
              changed.push(...outcome.changed);
              halted = true;
            }
          }
        }
      }

      // 4. The report.
      // This runner's last report (notes written between runs included), else the record's.
      const before = report === undefined ? (current.reconciliation ?? null) : report;
      const next: ReconciliationReport = {
        lastRunAt: at,
        runs: (before?.runs ?? 0) + 1,
        mismatches: mergeMismatches(before?.mismatches ?? [], mismatches),
        stream: options.stream,
      };
      current = (await write(deployment, next)) ?? { ...current, reconciliation: next };
      return { deployment: current, changed: changed.filter((o) => !isOpen(o)), mismatches, halted };
    },
  };
}

/** When a deployment's next reconciliation run is due: every `intervalMs`, and at once after `requestNow` (a stream gap). */
export interface ReconcileSchedule {
  due(nowMs: number): boolean;
  ran(nowMs: number): void;
  requestNow(): void;
}

/** Default interval of continuous reconciliation. */
export const DEFAULT_RECONCILE_INTERVAL_MS = 30_000;

export function createReconcileSchedule(startMs: number, intervalMs = DEFAULT_RECONCILE_INTERVAL_MS): ReconcileSchedule {
  let last = startMs;
  let requested = false;
  return {
    due: (nowMs) => requested || nowMs - last >= intervalMs,
    ran(nowMs) {
      last = nowMs;
      requested = false;
    },
    requestNow() {
      requested = true;
    },
  };
}

import type { LiveExitKind } from '../engine/model/codes.js';
import { isStratboxError } from '../errors/stratbox-error.js';
import type { OrderPlacement } from '../exchanges/order-placement.js';
import { parseMarketSymbol } from '../exchanges/market-symbol.js';
import { loadRunnableSource } from '../marketplace/licences.js';
import { deploymentSeed } from '../drift/deployment-seed.js';
import type { Clock } from '../ports/clock.js';
import { ExchangeGatewayError, type ExchangeGateway } from '../ports/exchange-gateway.js';
import type { Logger } from '../ports/logger.js';
import { TIMEFRAME_MS, type MarketData, type TimeframeName } from '../ports/market-data.js';
import type { DeploymentRecord, OrderRecord, Store } from '../ports/store.js';
import type { LiveSandbox, LiveSandboxSession } from './live-sandbox.js';
import { liveTimeframe, type LiveAccountState, type LiveCallResult, type LiveIntent, type LiveOrderEvent } from './live-session.js';
import { SandboxError } from '../sandbox/sandbox-error.js';
import { createClosedCandleFeed, type ClosedCandleFeed } from './closed-candle-feed.js';
import type { DeploymentLogWriter } from './deployment-log.js';
import { createRiskGuard, type RiskBreach, type RiskGuard } from './risk-guard.js';
import { haltDeployment } from './deployment-halt.js';
import { describeOrder, isFinal, isOpen, type OrderSync } from './order-sync.js';
import { preflightDeployment } from './deployment-preflight.js';
import { fenceGateway, LeaseLostError, type LeaseFence } from './lease-fence.js';
import { createReconciler, createReconcileSchedule } from './reconciler.js';
import { partialFill } from './partial-fill.js';
import { createProtectiveExits } from './protective-exit.js';
import { startOrderStream, type OrderStream } from './order-stream.js';
import { recordDeploymentStarted } from './deployment-events.js';
import { createHeartbeatWatch, type HeartbeatWatch } from './heartbeat-watch.js';
import { createDriftRecorder } from './drift-recorder.js';

/*
 * One running deployment: its strategy in a live sandbox session, its exchange gateway, and the
 * cycle the supervisor calls on every poll:
 *   1. bring the deployment's open orders up to date from the exchange; a fill, cancellation or
 *      rejection goes to `onOrder`;
 *   2. feed every newly closed candle to `onCandle`, with the account as the exchange reports it;
 *   3. turn the strategy's order intents into exchange orders through write-ahead placement
 *      (written `pending` to the Store under a client order id BEFORE being sent).
 * What the strategy saw and asked for is recorded for the drift report (drift-recorder.ts) before
 * any of it is sent: each candle with the equity shown and its intents, and the intents of
 * `onOrder` calls, at the last candle delivered for their symbol.
 * The supervisor serializes every call on one deployment, so a runner never runs two things at once.
 */

export interface LeasedGateway {
  gateway: ExchangeGateway;
  release(): void;
}

export interface DeploymentRunnerDeps {
  store: Store;
  clock: Clock;
  logger: Logger;
  marketData: MarketData;
  sandbox: LiveSandbox;
  placement: OrderPlacement;
  orders: OrderSync;
  log: DeploymentLogWriter;
  /** The exchange gateway of the deployment's credential (one shared client per credential). */
  acquireGateway(deployment: DeploymentRecord): Promise<LeasedGateway>;
  /** Consecutive cycles with exchange or market-data failures before the deployment fails. */
  maxExchangeFailures: number;
  /** CPU milliseconds of sandboxed execution, for metering. */
  onCompute?: (userId: string, cpuMs: number) => void;
  /** Called when the session's child process dies outside a call. */
  onCrash(error: SandboxError): void;
  /** Continuous reconciliation with the exchange every this many ms of `clock` (default 30 000): reconciler.ts. */
  reconcileIntervalMs?: number;
  /** Asked right before each order is sent; false refuses the send (this process lost the lease): lease-fence.ts. */
  fence?: LeaseFence;
  /** Whether to use the exchange's private order stream where the gateway has one (default true): order-stream.ts. */
  orderStreams?: boolean;
  /** Starts the order stream (default `startOrderStream`; tests wrap it to watch it). */
  startOrderStream?: typeof startOrderStream;
  /** How long a connected order stream may deliver nothing while orders are open before REST polls them all (default 60 000 ms of `clock`): order-stream.ts. */
  orderStreamQuietMs?: number;
}

export interface DeploymentFailure {
  code: string;
  message: string;
}

export interface DeploymentRunner {
  readonly deployment: DeploymentRecord;
  /**
   * Opens the gateway and the sandbox session, warms the indicators up, reconciles the orders
   * left open (after a restart: fills that happened while down go to `onOrder`), then moves
   * `starting` to `running`. Returns the failure instead of throwing.
   */
  start(): Promise<DeploymentFailure | null>;
  /** One poll. Returns a failure that must end the deployment, else null. */
  cycle(): Promise<DeploymentFailure | null>;
  /** The gateway, for the stop and fail paths (null before start or after halt). */
  gateway(): ExchangeGateway | null;
  /** Stops the strategy (closes the session, releases the gateway); orders are left as they are. */
  halt(): Promise<void>;
  readonly halted: boolean;
}

/** Nested onOrder calls (an order placed in onOrder that fills at once...) go at most this deep. */
const MAX_DEPTH = 8;

interface GuestOrder {
  gid: string;
  tag: string | null;
  exit: LiveExitKind | null;
  size: number | null;
  stopLoss: number | null;
  takeProfit: number | null;
  closeAll: boolean;
  time: number;
}

const message = (error: unknown) => (error instanceof Error ? error.message : String(error));

export function createDeploymentRunner(initial: DeploymentRecord, deps: DeploymentRunnerDeps): DeploymentRunner {
  const { store, clock, log, placement, orders: sync } = deps;
  let deployment = initial;
  let leased: LeasedGateway | null = null;
  let session: LiveSandboxSession | null = null;
  let feed: ClosedCandleFeed | null = null;
  let step = 0;
  let halted = false;
  /** The dead-man alert (heartbeat-watch.ts), from the moment it runs. */
  let heartbeat: HeartbeatWatch | null = null;
  /** The risk limits' guard of this run (null: no limits), and whether a breach halted the deployment: nothing more goes to the strategy. */
  let guard: RiskGuard | null = null;
  let breached = false;
  let hideSource = false;
  let failures = 0;
  /** The end of the exchange's last "wait" this runner logged (one line per ban, not one per poll). */
  let loggedWait: string | null = null;
  /** Exits the exchange's wait kept from being sent: sent again at the first poll after it. */
  let deferredExits: Array<{ intent: Extract<LiveIntent, { kind: 'place' }>; depth: number; retryAt: number }> = [];
  const lastTime = new Map<string, number>();
  const lastClose = new Map<string, number>();
  /** Order id -> how the strategy knows it; guest id -> order id. */
  const guestOf = new Map<string, GuestOrder>();
  const orderOfGuest = new Map<string, string>();
  /** Orders whose final event went to onOrder. */
  const delivered = new Set<string>();
  const nowMs = () => clock.now().getTime();
  const reconciler = createReconciler({ store, clock, logger: deps.logger, log, sync });
  const exits = createProtectiveExits({ store, clock, log, sync, placement, note: reconciler.note });
  let stream: OrderStream | null = null;
  const recorder = createDriftRecorder(initial.id, () => clock.now().toISOString());

  /** Records the intents of an `onOrder` call (before `apply` sends any), at the last candle delivered for their symbol. */
  async function recordOrderIntents(result: LiveCallResult, state: LiveAccountState) {
    if (result.intents.length === 0) return;
    const latest = Math.max(0, ...lastTime.values());
    await store.deploymentRecordings.recordIntents(recorder.intents(result.intents, 'order', (symbol) => lastTime.get(symbol) ?? latest, state));
  }

  /** The private order stream, where the gateway has one; REST stays the fallback (order-stream.ts). */
  function openOrderStream(): OrderStream | null {
    const g = gateway();
    const watch = g.watchOrders;
    if (deps.orderStreams === false || !watch) return null;
    return (deps.startOrderStream ?? startOrderStream)({
      watch: () => watch.call(g),
      now: nowMs,
      ...(deps.orderStreamQuietMs === undefined ? {} : { quietMs: deps.orderStreamQuietMs }),
      onState: (state, why) =>
        void log.write(
          deployment,
          state === 'connected' ? 'info' : 'warn',
          state === 'connected'
            ? 'Order stream connected'
            : `Order stream ${why === 'quiet' ? 'quiet with orders open' : 'down'}: polling the exchange for every open order at each poll`,
        ),
    });
  }
  const reconcileSchedule = createReconcileSchedule(nowMs(), deps.reconcileIntervalMs);
  /** The gateway orders are sent through: fenced on the lease when the supervisor gives a fence. */
  const sendGateway = () => (deps.fence ? fenceGateway(gateway(), deps.fence, store, deployment.id) : gateway());

  const gateway = () => {
    if (!leased) throw new Error('The deployment has no exchange gateway');
    return leased.gateway;
  };

  /** A sandbox failure as the user may see it: no details of a bought strategy's source. */
  function strategyFailure(error: SandboxError): DeploymentFailure {
    // A sandbox that never started says nothing about the source.
    const started = (error.details as { stage?: string } | undefined)?.stage !== 'start';
    if (hideSource && started) return { code: error.code, message: `The purchased strategy failed (${error.code})` };
    return { code: error.code, message: error.message };
  }

  async function accountState(): Promise<LiveAccountState> {
    const g = gateway();
    const [balance, positions, open] = await Promise.all([g.fetchBalance(), g.fetchPositions(deployment.symbols), store.orders.listOpen(deployment.id)]);
    const market = parseMarketSymbol(deployment.symbols[0] ?? '');
    const settle = market?.equityCurrency ?? 'USDT';
    const balanceTotal = balance[settle]?.total ?? 0;
    // A derivatives account's total holds the positions' unrealized P&L; on spot the deployment's
    // coins are worth their last close on top of its quote balance (as in a SPOT backtest).
    const spot = market?.marketType === 'SPOT';
    const unrealized = spot ? 0 : positions.reduce((sum, p) => sum + (p.unrealizedPnl ?? 0), 0);
    const held = spot ? positions.reduce((sum, p) => sum + p.quantity * (lastClose.get(p.symbol) ?? p.entryPrice ?? 0), 0) : 0;
    const equity = balanceTotal + held;
    return {
      cash: balanceTotal - unrealized,
      equity,
      positions: positions.map((p) => ({
        symbol: p.symbol,
        side: p.side,
        quantity: p.quantity,
        entryPrice: p.entryPrice,
        entryTime: null,
        margin: p.entryPrice !== null && p.leverage ? (p.quantity * p.entryPrice) / p.leverage : null,
        liquidationPrice: p.liquidationPrice,
        unrealizedPnl: p.unrealizedPnl,
      })),
      orders: open.map((o) => {
        const g2 = guestOf.get(o.id);
        return {
          id: g2?.gid ?? o.id,
          symbol: o.symbol,
          side: o.side,
          type: o.type,
          price: o.type === 'stop' ? o.stopPrice : o.price,
          quantity: o.quantity,
          size: g2?.size ?? null,
          stopLoss: g2?.stopLoss ?? null,
          takeProfit: g2?.takeProfit ?? null,
          reduceOnly: o.reduceOnly,
          closeAll: g2?.closeAll ?? false,
          tag: g2?.tag ?? null,
          time: g2?.time ?? Date.parse(o.createdAt),
        };
      }),
    };
  }

  async function apply(result: LiveCallResult, depth: number): Promise<void> {
    deps.onCompute?.(deployment.userId, result.cpuMs);
    // A bought strategy's own log lines stay hidden from the buyer, as its source does.
    if (!hideSource) {
      await log.writeMany(
        deployment,
        result.logs.map((l) => ({ level: l.level, message: l.message })),
      );
    }
    // The intents of one call were asked at one instant, however long sending them takes.
    const askedAt = nowMs();
    for (const intent of result.intents) {
      if (halted || breached) return;
      if (intent.kind === 'place') await placeIntent(intent, depth, askedAt);
      else await cancelIntent(intent.id, depth);
    }
  }

  async function deliver(order: OrderRecord, depth: number, override?: Partial<LiveOrderEvent>): Promise<void> {
    if (halted || !session || delivered.has(order.id) || !isFinal(order)) return;
    delivered.add(order.id);
    const g = guestOf.get(order.id);
    const event: LiveOrderEvent = {
      id: g?.gid ?? order.id,
      symbol: order.symbol,
      side: order.side,
      type: g?.exit ?? order.type,
      status: order.status as LiveOrderEvent['status'],
      quantity: order.status === 'filled' ? order.filledQuantity : order.quantity,
      price: order.averagePrice ?? (order.type === 'stop' ? order.stopPrice : order.price),
      fee: order.fee,
      time: nowMs(),
      reason: order.status === 'cancelled' ? 'cancelled' : order.status === 'rejected' ? 'rejected by the exchange' : null,
      tag: g?.tag ?? null,
      ...override,
      // Partly filled, then cancelled: the strategy hears of the fill of what filled (its stop-loss and take-profit attach to it).
      ...partialFill(order),
    };
    if (depth >= MAX_DEPTH) {
      await log.write(deployment, 'warn', `onOrder not called for ${order.id}: orders placed from onOrder went ${MAX_DEPTH} levels deep`);
      return;
    }
    let state: LiveAccountState;
    try {
      state = await accountState();
    } catch (error) {
      // The account could not be read (the exchange is down, or asked us to wait): the strategy
      // hears of this order at a later poll rather than never.
      delivered.delete(order.id);
      undelivered.set(order.id, { order, override });
      throw error;
    }
    const result = await session.order(event, state);
    await recordOrderIntents(result, state);
    await apply(result, depth + 1);
  }

  /** Final order events whose delivery failed when the account could not be read: delivered at the next poll. */
  const undelivered = new Map<string, { order: OrderRecord; override: Partial<LiveOrderEvent> | undefined }>();
  async function deliverHeldBack() {
    for (const [id, { order, override }] of [...undelivered]) {
      if (halted) return;
      undelivered.delete(id);
      await deliver(order, 0, override);
    }
  }

  /** An event for an intent that never became an exchange order. */
  async function deliverLocal(
    gid: string,
    intent: Extract<LiveIntent, { kind: 'place' }>['order'],
    status: 'cancelled' | 'rejected',
    reason: string,
    depth: number,
  ) {
    await log.write(deployment, 'warn', `Order ${gid} ${status}: ${reason}`);
    if (halted || !session || depth >= MAX_DEPTH) return;
    const event: LiveOrderEvent = {
      id: gid,
      symbol: intent.symbol,
      side: intent.side,
      type: intent.exit ?? intent.type,
      status,
      quantity: intent.quantity ?? 0,
      price: intent.price,
      fee: 0,
      time: nowMs(),
      reason,
      tag: intent.tag,
    };
    const state = await accountState();
    const result = await session.order(event, state);
    await recordOrderIntents(result, state);
    await apply(result, depth + 1);
  }

  async function placeIntent(intent: Extract<LiveIntent, { kind: 'place' }>, depth: number, askedAt = nowMs()) {
    const o = intent.order;
    if (await rateBreached(askedAt)) return;
    let side = o.side;
    let quantity = o.quantity;
    if (o.closeAll) {
      const position = (await gateway().fetchPositions([o.symbol])).find((p) => p.symbol === o.symbol);
      if (!position) return deliverLocal(o.id, o, 'cancelled', 'no position to close', depth);
      side = position.side === 'long' ? 'sell' : 'buy';
      // min(position, free), rounded down to the step; dust is recorded, not sent (protective-exit.ts).
      quantity = await exits.size(deployment, gateway(), o.symbol, position.quantity, lastClose.get(o.symbol) ?? position.markPrice);
      if (quantity === null) return deliverLocal(o.id, o, 'cancelled', 'only dust left, too small for the exchange to take', depth);
    } else if (quantity === null && o.size !== null) {
      const price = o.type === 'market' ? lastClose.get(o.symbol) : (o.price ?? undefined);
      const state = await accountState();
      quantity = price ? (o.size * state.equity) / price : null;
    }
    if (quantity === null || !(Number.isFinite(quantity) && quantity > 0)) {
      return deliverLocal(o.id, o, 'rejected', `order quantity is not positive (${quantity})`, depth);
    }
    const refusal = await entryRefusal(o, side, quantity);
    if (refusal) return deliverLocal(o.id, o, 'rejected', `refused by the risk limits: ${refusal}`, depth);
    const input = {
      userId: deployment.userId,
      deploymentId: deployment.id,
      symbol: o.symbol,
      side,
      type: o.type,
      quantity,
      ...(o.type === 'limit' && o.price !== null ? { price: o.price } : {}),
      ...(o.type === 'stop' && o.price !== null ? { stopPrice: o.price } : {}),
      ...(o.reduceOnly || o.closeAll ? { reduceOnly: true } : {}),
    };
    const remember = (order: OrderRecord) => {
      guestOf.set(order.id, {
        gid: o.id,
        tag: o.tag,
        exit: o.exit ?? null,
        size: o.size,
        stopLoss: o.stopLoss,
        takeProfit: o.takeProfit,
        closeAll: o.closeAll,
        time: o.time,
      });
      orderOfGuest.set(o.id, order.id);
    };
    let order: OrderRecord;
    try {
      order = await placement.place(sendGateway(), input);
    } catch (error) {
      // Not sent (the lease is gone): the order is marked rejected; the next lease holder runs the deployment.
      if (error instanceof LeaseLostError) throw error;
      // The order was written before it was sent: find it by the client order id the error names,
      // else as the newest order of this deployment (this runner is its only writer).
      const clientOrderId = error instanceof ExchangeGatewayError ? (error.details as { clientOrderId?: string } | undefined)?.clientOrderId : undefined;
      let written = clientOrderId ? await store.orders.findByClientOrderId(clientOrderId) : null;
      if (!written) {
        const [newest] = await store.orders.listByDeployment(deployment.userId, deployment.id, { limit: 1 });
        written = newest && newest.symbol === o.symbol && newest.quantity === quantity && newest.side === side ? newest : null;
      }
      if (written) remember(written);
      // The exchange asked the account to wait (429/418): nothing was sent. An exit is sent again
      // once the wait is over (a position is never left without its close); an entry is refused.
      const waitUntil = error instanceof ExchangeGatewayError ? error.retryAt : null;
      if (waitUntil !== null && written && isExitIntent(o)) {
        deferredExits.push({ intent, depth, retryAt: Date.parse(waitUntil) });
        await log.write(deployment, 'warn', `Exit not sent yet: ${describeOrder(written)}: ${message(error)}; it is sent again once the wait is over`);
        sync.publish(deployment, written);
        return;
      }
      if (error instanceof ExchangeGatewayError && (!error.transient || waitUntil !== null) && written) {
        await log.write(deployment, 'warn', `Order rejected by ${error.exchange}: ${describeOrder(written)}: ${error.message}`);
        sync.publish(deployment, written);
        await deliver(written, depth, { reason: error.message });
        // A protective stop the exchange refused: the position is closed rather than left unprotected.
        if (written.type === 'stop' && written.reduceOnly && waitUntil === null) {
          const closed = await exits.closeAfterRefusedStop(deployment, gateway(), written, error.message);
          if (closed) await deliver(closed, depth);
        }
        return;
      }
      if (written) {
        await log.write(deployment, 'warn', `Order sent, outcome unknown yet: ${describeOrder(written)}: ${message(error)}`);
        sync.publish(deployment, written);
      }
      throw error;
    }
    remember(order);
    await log.write(deployment, 'info', `Order placed: ${describeOrder(order)}`);
    await sync.report(deployment, null, order);
    await deliver(order, depth);
  }

  async function cancelIntent(gid: string, depth: number) {
    const id = orderOfGuest.get(gid) ?? gid;
    const order = await store.orders.findById(deployment.userId, id);
    if (!order || order.deploymentId !== deployment.id || !isOpen(order)) return;
    const after = await sync.cancel(deployment, gateway(), order);
    if (isOpen(after)) await log.write(deployment, 'warn', `Could not cancel ${describeOrder(after)} yet: the exchange has not acknowledged it`);
    await deliver(after, depth, after.status === 'cancelled' ? { reason: 'cancelled by the strategy' } : {});
  }

  /** Brings every open order up to date; final ones go to onOrder. */
  async function syncOrders() {
    // While the private stream is up it carries the changes; REST polls every order at each cycle only while it is down.
    const open = await store.orders.listOpen(deployment.id);
    // A stream silent for its quiet period while orders are open counts as down (order-stream.ts).
    const newest = open.length > 0 ? Math.max(...open.map((o) => Date.parse(o.createdAt))) : null;
    const streamUp = stream?.checkQuiet(newest) === 'connected';
    for (const order of open) {
      if (halted) return;
      if (streamUp && order.status !== 'pending') continue;
      let after: OrderRecord;
      try {
        after = await sync.reconcile(deployment, gateway(), order);
      } catch (error) {
        // Gone from the exchange under its id: reconciliation (below) settles it by the missing-order policy.
        if (!(error instanceof ExchangeGatewayError && error.reason === 'order_not_found')) throw error;
        reconcileSchedule.requestNow();
        continue;
      }
      await deliver(after, 0);
    }
    // The stream's updates, through the same recording as REST (applied twice, they change nothing).
    for (const seen of stream?.take() ?? []) {
      if (halted) return;
      const after = await sync.applySeen(deployment, seen);
      if (after) await deliver(after, 0);
    }
    if (stream?.takeReconnected()) reconcileSchedule.requestNow();
  }

  /** An order intent that exits: it only reduces or closes a position. */
  const isExitIntent = (o: Extract<LiveIntent, { kind: 'place' }>['order']) => o.reduceOnly || o.closeAll || (o.exit ?? null) !== null;

  /** Sends the exits an exchange's wait held back, once the wait is over (wall clock, as the exchange's). */
  async function sendDeferredExits() {
    const now = Date.now();
    const due = deferredExits.filter((d) => d.retryAt <= now);
    if (due.length === 0) return;
    deferredExits = deferredExits.filter((d) => d.retryAt > now);
    for (const d of due) {
      if (halted) return;
      await placeIntent(d.intent, d.depth);
    }
  }

  /** Turns a thrown error into a deployment failure, or null for a transient one (counted). */
  async function classify(error: unknown): Promise<DeploymentFailure | null> {
    if (error instanceof SandboxError) return strategyFailure(error);
    if (error instanceof LeaseLostError) {
      await log.write(deployment, 'warn', error.message);
      return null;
    }
    if (error instanceof ExchangeGatewayError && error.reason === 'authentication') return { code: 'EXCHANGE_AUTHENTICATION', message: error.message };
    // A wait the exchange asked for (429/418 with Retry-After) is not a failure: nothing is sent
    // until it is over, and the next poll after it goes on (candles missed meanwhile feed the indicators).
    if (error instanceof ExchangeGatewayError && error.retryAt !== null) {
      if (error.retryAt !== loggedWait) {
        loggedWait = error.retryAt;
        await log.write(deployment, 'warn', `Trading paused: ${error.message}`);
      }
      return null;
    }
    failures++;
    const text = isStratboxError(error) || error instanceof Error ? message(error) : 'unknown error';
    await log.write(deployment, 'warn', `Exchange or market data problem (${failures}/${deps.maxExchangeFailures}): ${text}`);
    if (failures >= deps.maxExchangeFailures) return { code: 'EXCHANGE_FAILURE', message: `The exchange failed ${failures} times in a row: ${text}` };
    return null;
  }

  // Risk limits (risk-guard.ts decides, deployment-halt.ts acts on a breach).

  type PlaceOrder = Extract<LiveIntent, { kind: 'place' }>['order'];

  /**
   * The guard of this run: a deployment created or restarted by its owner measures from its
   * start; one resumed after a restart of the service keeps the peak and day it had.
   */
  function openGuard(resumed: boolean) {
    const risk = deployment.risk;
    const currency = parseMarketSymbol(deployment.symbols[0] ?? '')?.equityCurrency ?? 'USDT';
    guard = risk ? createRiskGuard(risk, resumed ? (deployment.riskState ?? null) : null, currency) : null;
  }

  /** Whether a limit needs the account read at every poll (`maxOrdersPerMinute` alone does not). */
  const watchesAccount = () =>
    guard !== null && (guard.limits.maxDrawdown !== undefined || guard.limits.dailyLossLimit !== undefined || guard.limits.maxPositionNotional !== undefined);

  /** Orders `onBreach: 'keep'` leaves in place: reduce-only ones and the strategy's stop-loss / take-profit closes. */
  const isExitOrder = (order: OrderRecord) => order.reduceOnly || (guestOf.get(order.id)?.exit ?? null) !== null;

  /** Halts the deployment for `breach`, once: the strategy's session ends at once, then deployment-halt.ts cancels and closes. */
  async function haltForBreach(breach: RiskBreach) {
    if (breached) return;
    breached = true;
    const s = session;
    session = null;
    await s?.close();
    const flatten = (deployment.risk?.onBreach ?? 'close') === 'close';
    const halt = { reason: breach.reason, message: breach.message, value: breach.value, limit: breach.limit, at: clock.now().toISOString() };
    const after = await haltDeployment({ store, clock, logger: deps.logger, log, sync }, deployment, gateway(), halt, {
      flatten,
      keep: (order) => !flatten && isExitOrder(order),
      headline: `Risk limit breached (${breach.reason}): ${breach.message}`,
      describe: flatten ? 'cancelling its orders and closing its positions' : 'cancelling its entry orders, keeping its positions and their exits',
    });
    if (after) deployment = after.deployment;
  }

  /** One reading of the account for the guard (its peak and day are kept on the record when they move); true when the deployment is halted. */
  async function checkRisk(state: LiveAccountState): Promise<boolean> {
    if (breached) return true;
    if (!guard) return false;
    const positions = state.positions.map((p) => ({ symbol: p.symbol, side: p.side, quantity: p.quantity, price: lastClose.get(p.symbol) ?? p.entryPrice }));
    const breach = guard.observe({ equity: state.equity, positions }, nowMs());
    if (guard.takeChanged()) await store.deployments.update(deployment.id, { riskState: guard.state() });
    if (breach) await haltForBreach(breach);
    return breached;
  }

  /**
   * Counts one order intent of the strategy at the time the strategy asked for it (when its call
   * returned: the intents of one call count as one instant however long sending them takes);
   * true when it breached `maxOrdersPerMinute` (the deployment is halted, the intent dropped).
   */
  async function rateBreached(askedAt: number): Promise<boolean> {
    const breach = guard?.countOrder(askedAt);
    if (breach) await haltForBreach(breach);
    return breached;
  }

  /** Why an entry would take its position past `maxPositionNotional` (counting the open entries on its side), else null. */
  async function entryRefusal(o: PlaceOrder, side: 'buy' | 'sell', quantity: number): Promise<string | null> {
    if (!guard || guard.limits.maxPositionNotional === undefined || o.reduceOnly || o.closeAll || o.exit) return null;
    const price = o.type === 'market' ? (lastClose.get(o.symbol) ?? null) : o.price;
    const held = (await gateway().fetchPositions([o.symbol])).find((p) => p.symbol === o.symbol);
    let pending = 0;
    for (const order of await store.orders.listOpen(deployment.id)) {
      if (order.symbol !== o.symbol || order.side !== side || isExitOrder(order)) continue;
      pending += order.quantity - order.filledQuantity;
    }
    return guard.refuseEntry({
      symbol: o.symbol,
      side,
      quantity,
      price,
      position: held ? (held.side === 'long' ? held.quantity : -held.quantity) : 0,
      pending: side === 'buy' ? pending : -pending,
    });
  }

  async function warmUp(timeframe: TimeframeName, warmup: number) {
    const upTo = feed!.lastClosedOpenTime(nowMs());
    const from = upTo - (warmup + 5) * step;
    let candles: Awaited<ReturnType<ClosedCandleFeed['between']>> = [];
    try {
      candles = await feed!.between(() => from, upTo);
    } catch (error) {
      await log.write(deployment, 'warn', `No warm-up candles (${timeframe}): ${message(error)}`);
    }
    for (const c of candles) lastClose.set(c.symbol, c.close);
    await session!.history(candles);
    for (const s of deployment.symbols) lastTime.set(s, upTo);
  }

  /** One poll (see the file's comment): a failure that must end the deployment, else null. */
  async function poll(session: LiveSandboxSession, feed: ClosedCandleFeed): Promise<DeploymentFailure | null> {
    try {
      await syncOrders();
      await deliverHeldBack();
      await sendDeferredExits();
      // After the account is read each cycle, and below before each candle: a breached limit halts the deployment.
      if (watchesAccount() && (await checkRisk(await accountState()))) return null;
      if (reconcileSchedule.due(nowMs())) {
        // Continuous reconciliation (reconciler.ts): orders the strategy must hear of go to onOrder; a halt ends the cycle.
        const run = await reconciler.run(deployment, gateway(), { stream: stream ? stream.state : 'none' });
        reconcileSchedule.ran(nowMs());
        deployment = run.deployment;
        for (const order of run.changed) await deliver(order, 0);
        if (run.halted) return null;
      }
      const upTo = feed.lastClosedOpenTime(nowMs());
      const behind = deployment.symbols.some((s) => (lastTime.get(s) ?? upTo) < upTo);
      if (behind) {
        const candles = await feed.between((s) => lastTime.get(s) ?? upTo, upTo);
        for (const candle of candles) {
          if (halted || breached) break;
          lastClose.set(candle.symbol, candle.close);
          // A candle more than a period late (a slow cycle, a paused process) only feeds the indicators.
          if (candle.time < upTo - step) await session.history([candle]);
          else {
            const state = await accountState();
            if (await checkRisk(state)) break;
            const result = await session.candle(candle, state);
            lastTime.set(candle.symbol, candle.time);
            heartbeat?.processed(candle.time);
            // Write-ahead: the candle and its intents are recorded before anything is sent.
            await store.deploymentRecordings.recordCandle(
              recorder.candle(candle, state.equity),
              recorder.intents(result.intents, 'candle', () => candle.time, state),
            );
            await apply(result, 0);
          }
          lastTime.set(candle.symbol, candle.time);
        }
      }
      failures = 0;
      return null;
    } catch (error) {
      return classify(error);
    }
  }

  return {
    get deployment() {
      return deployment;
    },
    get halted() {
      return halted;
    },
    gateway: () => leased?.gateway ?? null,

    async start() {
      const resumed = deployment.status === 'running';
      try {
        leased = await deps.acquireGateway(deployment);
        // The exchange account is checked before the strategy opens (deployment-preflight.ts),
        // and the deployment's leverage and margin mode, when it has them, are set.
        const settings = {
          ...(deployment.leverage != null ? { leverage: deployment.leverage } : {}),
          ...(deployment.marginMode != null ? { marginMode: deployment.marginMode } : {}),
        };
        const refused = await preflightDeployment({ gateway: leased.gateway, deployment, resumed, store, clock, log, settings });
        if (refused) return refused;
        const version = await loadRunnableSource(store, deployment.userId, deployment.strategyId, deployment.strategyVersion);
        hideSource = version.userId !== deployment.userId;
        session = await deps.sandbox.open({
          source: version.source,
          symbols: deployment.symbols,
          params: deployment.params,
          seed: deploymentSeed(deployment.id),
          startTime: nowMs(),
        });
        void session.crashed.then((error) => {
          if (!halted) deps.onCrash(error);
        });
        const timeframe = liveTimeframe(session.meta);
        step = TIMEFRAME_MS[timeframe];
        feed = createClosedCandleFeed({ marketData: deps.marketData, symbols: deployment.symbols, timeframe });
        await warmUp(timeframe, session.meta.warmup ?? 0);
        openGuard(resumed);
        // Orders left open by an earlier run (a crash, a restart): looked up, never re-sent.
        const open = await store.orders.listOpen(deployment.id);
        for (const order of open) {
          const after = await sync.reconcile(deployment, gateway(), order);
          if (after.status !== order.status) await log.write(deployment, 'info', `Reconciled ${describeOrder(after)}: ${order.status} -> ${after.status}`);
          await deliver(after, 0);
        }
        // Restarted by its owner: the positions are taken as they are (a restart after a positionMismatch halt accepts them).
        if (!resumed) await reconciler.acceptPositions(deployment, gateway());
        stream = openOrderStream();
        const now = clock.now().toISOString();
        if (!resumed) {
          const running = await store.transaction(async (tx) => {
            const moved = await tx.deployments.transition(deployment.id, ['starting'], { status: 'running', startedAt: now, updatedAt: now, error: null });
            if (moved) await recordDeploymentStarted(tx, moved, now);
            return moved;
          });
          if (!running) {
            await this.halt();
            return null;
          }
          deployment = running;
        } else {
          await recordDeploymentStarted(store, deployment, now, true);
        }
        // This run, for the drift report; an account that cannot be read now leaves its start equity unknown.
        const startEquity = await accountState().then(
          (state) => state.equity,
          () => null,
        );
        await store.deploymentRecordings.recordRun(recorder.run(now, resumed, startEquity));
        heartbeat = createHeartbeatWatch({ store, deployment, timeframe, stepMs: step, startedAtMs: Date.parse(now) });
        await log.write(
          deployment,
          'info',
          resumed
            ? `Deployment resumed after a restart (${open.length} open order(s) reconciled)`
            : `Deployment started: ${deployment.symbols.join(', ')} on ${timeframe} candles, strategy version ${deployment.strategyVersion}`,
        );
        // The guard's first reading (the peak of a fresh start; an account that cannot be read now is read at the first poll).
        if (watchesAccount()) {
          const state = await accountState().catch(() => null);
          if (state && (await checkRisk(state))) await this.halt();
        }
        return null;
      } catch (error) {
        if (error instanceof SandboxError) return strategyFailure(error);
        if (isStratboxError(error))
          return {
            code: error.code,
            message: hideSource && error.code === 'VALIDATION_FAILED' ? 'The purchased strategy cannot run with these parameters' : error.message,
          };
        deps.logger.error('Deployment failed to start', { deploymentId: deployment.id, error: message(error) });
        return { code: 'INTERNAL', message: 'The deployment could not start' };
      }
    },

    async cycle() {
      if (halted || !session || !feed) return null;
      const failure = await poll(session, feed);
      // The dead-man alert, whatever this poll met (an exchange error, a wait, no new candle), unless it ends the deployment.
      if (!halted && failure === null)
        await heartbeat?.check(nowMs()).catch((error: unknown) => log.write(deployment, 'warn', `Could not record a missed heartbeat: ${message(error)}`));
      return failure;
    },

    async halt() {
      if (halted) return;
      halted = true;
      stream?.close();
      stream = null;
      const s = session;
      session = null;
      await s?.close();
      leased?.release();
      leased = null;
    },
  };
}

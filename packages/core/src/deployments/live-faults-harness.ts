import ccxt from 'ccxt';
import { createStratbox, type Stratbox } from '../create-stratbox.js';
import { createInProcessEventBus } from '../events/in-process-event-bus.js';
import { createCcxtGateway } from '../exchanges/ccxt-gateway.js';
import type { CcxtExchange } from '../exchanges/ccxt-exchange.js';
import { createOrderPlacement } from '../exchanges/order-placement.js';
import type { ExchangeBans } from '../ports/exchange-bans.js';
import type { ExchangeGateway } from '../ports/exchange-gateway.js';
import { createSilentLogger } from '../ports/logger.js';
import type { DeploymentRecord, OrderRecord, Store } from '../ports/store.js';
import { FAKE_BINANCE_API_KEY, FAKE_BINANCE_SECRET, startFakeBinance, type FakeBinance } from '../testing/fake-binance-usdm.js';
import { createMemoryStore } from '../testing/memory-store.js';
import { newId } from '../util/ids.js';
import { createDeploymentLogWriter } from './deployment-log.js';
import { createDeploymentRunner, type DeploymentRunner, type DeploymentRunnerDeps } from './deployment-runner.js';
import { createLiveSandbox, type LiveSandbox } from './live-sandbox.js';
import { createOrderSync } from './order-sync.js';
import { startOrderStream, type OrderStream } from './order-stream.js';
import { startFakeBinanceUserStream, type FakeUserStream } from '../testing/fake-binance-user-stream.js';
import { moveExchangeApi } from '../exchanges/move-exchange-api.js';
import { flatMarketData, manualClock, type ManualClock } from './live-harness-parts.js';

/*
 * Test harness of the live fault suite: one deployment's runner (the real one) on the real ccxt
 * binanceusdm class against the local Binance double, a memory Store and a clock the test moves
 * by hand. A test calls `cycle()` itself, so each step happens when the test says, with no timer
 * and no sleep: move the clock past a candle's close, cycle, look at the exchange and the Store.
 */

export const SYMBOL = 'BTC/USDT:USDT';
export type { ManualClock } from './live-harness-parts.js';

/** The real ccxt binanceusdm class with its REST API moved to the double. */
export function binanceUsdmAt(fake: FakeBinance, userStream?: FakeUserStream): CcxtExchange & { close(): Promise<unknown> } {
  const config = { apiKey: FAKE_BINANCE_API_KEY, secret: FAKE_BINANCE_SECRET, enableRateLimit: false, timeout: 1500 };
  // With a user-data stream: the pro class (REST and watchOrders), its stream moved to the double's too.
  const exchange = userStream ? new ccxt.pro.binanceusdm(config) : new ccxt.binanceusdm(config);
  const api = exchange.urls['api'] as Record<string, unknown>;
  moveExchangeApi(exchange, fake.url);
  if (userStream) (api['ws'] as Record<string, unknown>)['future'] = userStream.wsUrl;
  return exchange;
}

export interface LiveHarness {
  fake: FakeBinance;
  /** The double's user-data stream (with `{ stream: true }`). */
  userStream: FakeUserStream | null;
  /** The order streams the runners started, in order. */
  streams: OrderStream[];
  store: Store;
  clock: ManualClock;
  /** The Stratbox around the runner (the same Store, clock and flat candles; deployments are run by the test, not by it). */
  stratbox: Stratbox;
  userId: string;
  gateway: ExchangeGateway;
  deployment: DeploymentRecord;
  /** A new runner of the deployment as the Store holds it (a fresh process's, after a crash: its own gateway and session). */
  runner(extra?: Partial<DeploymentRunnerDeps>): Promise<DeploymentRunner>;
  orders(): Promise<OrderRecord[]>;
  logs(): Promise<string[]>;
  current(): Promise<DeploymentRecord>;
  close(): Promise<void>;
}

export async function startLiveHarness(
  source: string,
  options: {
    reconcileIntervalMs?: number;
    stream?: boolean;
    /** 429/418 kept for the account, as the pool does; reads wait out a wait of up to `readWaitMs` (default 30 s). */
    bans?: { store: ExchangeBans; readWaitMs?: number };
    /** The drift replay's model (default: the paper exchange's). */
    drift?: { slippage?: number; fees?: { maker: number; taker: number } };
  } = {},
): Promise<LiveHarness> {
  const fake = await startFakeBinance();
  const userStream = options.stream ? await startFakeBinanceUserStream(fake) : null;
  const streams: OrderStream[] = [];
  const exchanges: Array<{ close(): Promise<unknown> }> = [];
  const store = createMemoryStore();
  const clock = manualClock();
  const logger = createSilentLogger();
  const stratbox: Stratbox = createStratbox({
    store,
    clock,
    logger,
    workerConcurrency: 0,
    deployments: { run: false },
    marketData: flatMarketData(),
    drift: { refresh: false, ...options.drift },
  });
  const { userId } = await stratbox.users.createUser(`u${newId('user').slice(-6)}`);
  const strategy = await stratbox.strategies.create(userId, { name: 'fault', description: '', source, marketType: 'LINEAR' });
  const time = clock.now().toISOString();
  const deployment: DeploymentRecord = {
    id: newId('deployment'),
    userId,
    strategyId: strategy.id,
    strategyVersion: 1,
    credentialId: newId('credential'),
    symbols: [SYMBOL],
    params: {},
    status: 'starting',
    error: null,
    createdAt: time,
    updatedAt: time,
    startedAt: null,
    stoppedAt: null,
  };
  await store.deployments.insert(deployment);
  const sandbox: LiveSandbox = createLiveSandbox({ callCpuTimeMs: 1000 });
  const fastRetry = { maxAttempts: 3, baseDelayMs: 5, maxDelayMs: 20 };
  const newGateway = () => {
    const exchange = binanceUsdmAt(fake, userStream ?? undefined);
    exchanges.push(exchange);
    return createCcxtGateway({
      exchange,
      marketType: 'LINEAR',
      retry: fastRetry,
      clock,
      ...(options.bans
        ? {
            bans: {
              store: options.bans.store,
              accountKey: 'binanceusdm:harness',
              ...(options.bans.readWaitMs === undefined ? {} : { maxReadWaitMs: options.bans.readWaitMs }),
            },
          }
        : {}),
    });
  };
  const gateway = newGateway();
  const placement = createOrderPlacement({ store, clock });
  const log = createDeploymentLogWriter({ store, clock, logger });
  const sync = createOrderSync({ store, clock, events: createInProcessEventBus(), placement, log });
  const runners: DeploymentRunner[] = [];

  return {
    fake,
    userStream,
    streams,
    store,
    clock,
    stratbox,
    userId,
    gateway,
    deployment,
    async runner(extra = {}) {
      const own = newGateway();
      const current = (await store.deployments.findById(userId, deployment.id))!;
      const runner = createDeploymentRunner(current, {
        store,
        clock,
        logger,
        marketData: flatMarketData(),
        sandbox,
        placement,
        orders: sync,
        log,
        acquireGateway: async () => ({ gateway: own, release() {} }),
        maxExchangeFailures: 1000,
        onCrash() {},
        startOrderStream(streamOptions) {
          // Quick to call a quiet stream connected, so a test waits less.
          const stream = startOrderStream({ ...streamOptions, settleMs: 200, retryBaseMs: 100, retryMaxMs: 400 });
          streams.push(stream);
          return stream;
        },
        ...(options.reconcileIntervalMs === undefined ? {} : { reconcileIntervalMs: options.reconcileIntervalMs }),
        ...extra,
      });
      runners.push(runner);
      return runner;
    },
    orders: async () => (await store.orders.listByDeployment(userId, deployment.id, { limit: 500 })).reverse(),
    logs: async () => (await store.deploymentLogs.list(userId, deployment.id, { limit: 1000 })).map((l) => l.message),
    current: async () => (await store.deployments.findById(userId, deployment.id))!,
    async close() {
      for (const r of runners) await r.halt();
      await sandbox.close();
      await stratbox.close();
      for (const exchange of exchanges) await exchange.close().catch(() => undefined);
      await userStream?.close();
      await fake.close();
    },
  };
}

import ccxt from 'ccxt';
import { createStratbox, type Stratbox } from '../create-stratbox.js';
import type { CredentialService } from '../credentials/credential-service.js';
import { createInProcessEventBus } from '../events/in-process-event-bus.js';
import type { CcxtExchange } from '../exchanges/ccxt-exchange.js';
import { createExchangeClientPool, type ExchangeClientPool } from '../exchanges/exchange-client-pool.js';
import { createOrderPlacement } from '../exchanges/order-placement.js';
import type { Clock } from '../ports/clock.js';
import { createSilentLogger } from '../ports/logger.js';
import type { RiskLimits } from '@stratbox/contract';
import type { DeploymentRecord, OrderRecord, Store } from '../ports/store.js';
import { FAKE_SPOT_SYMBOL, startFakeBinanceSpot, type FakeBinanceSpot } from '../testing/fake-binance-spot.js';
import { FAKE_BINANCE_API_KEY, FAKE_BINANCE_SECRET } from '../testing/fake-binance-usdm.js';
import { createMemoryStore } from '../testing/memory-store.js';
import { newId } from '../util/ids.js';
import { createDeploymentGateways } from './deployment-gateway.js';
import { createDeploymentLeases } from './deployment-leases.js';
import { createDeploymentLogWriter } from './deployment-log.js';
import type { LeasedGateway } from './deployment-runner.js';
import { createDeploymentRunner, type DeploymentRunner } from './deployment-runner.js';
import { createDeploymentStopFlow, type DeploymentStopFlow } from './deployment-stop.js';
import { createLiveSandbox, type LiveSandbox } from './live-sandbox.js';
import { createOrderSync } from './order-sync.js';
import { moveExchangeApi } from '../exchanges/move-exchange-api.js';
import { flatMarketData, manualClock } from './live-harness-parts.js';

/*
 * Test harness of live SPOT trading: one deployment's real runner on `BTC/USDT`, through the real
 * ccxt `binance` class, against the local Binance SPOT double, with the gateway a deployment gets
 * in production (the client pool's spot gateway behind `createDeploymentGateways`), a memory
 * Store and a clock the test moves by hand (`cycle()` is called by the test: no timer, no sleep).
 * `stopFlow` is the real stop of a deployment.
 */

export const SPOT_SYMBOL = FAKE_SPOT_SYMBOL;

export interface SpotClock extends Clock {
  /** Moves to just after the close of the next 1m candle. */
  nextCandle(): void;
}

/** The real ccxt binance class with its REST API moved to the spot double; only spot markets are loaded. */
function binanceSpotAt(fake: FakeBinanceSpot, config: Record<string, unknown>): CcxtExchange {
  const options = { ...(config['options'] as object), fetchMarkets: { types: ['spot'] }, fetchCurrencies: false };
  const exchange = new ccxt.binance({ ...config, options, enableRateLimit: false, timeout: 1500 });
  moveExchangeApi(exchange, fake.url);
  return exchange;
}

export interface SpotHarness {
  fake: FakeBinanceSpot;
  store: Store;
  clock: SpotClock;
  deployment: DeploymentRecord;
  /** A runner of the deployment as the Store holds it, on the gateway `createDeploymentGateways` gives it. */
  runner(): Promise<DeploymentRunner>;
  /** The deployment's gateway, as its runner and its stop get it. */
  acquireGateway(): Promise<LeasedGateway>;
  /** The real stop flow (cancel, close the positions, `stopped`), for a deployment moved to `stopping`. */
  stopFlow: DeploymentStopFlow;
  sync: ReturnType<typeof createOrderSync>;
  orders(): Promise<OrderRecord[]>;
  logs(): Promise<string[]>;
  current(): Promise<DeploymentRecord>;
  close(): Promise<void>;
}

export async function startSpotHarness(source: string, options: { risk?: RiskLimits } = {}): Promise<SpotHarness> {
  const fake = await startFakeBinanceSpot();
  const store = createMemoryStore();
  const clock: SpotClock = manualClock();
  const logger = createSilentLogger();
  const stratbox: Stratbox = createStratbox({ store, clock, logger, workerConcurrency: 0, deployments: { run: false } });
  const { userId } = await stratbox.users.createUser(`u${newId('user').slice(-6)}`);
  const strategy = await stratbox.strategies.create(userId, { name: 'spot', description: '', source, marketType: 'SPOT' });
  const time = clock.now().toISOString();
  const credentialId = newId('credential');
  const deployment: DeploymentRecord = {
    id: newId('deployment'),
    userId,
    strategyId: strategy.id,
    strategyVersion: 1,
    credentialId,
    symbols: [SPOT_SYMBOL],
    params: {},
    status: 'starting',
    error: null,
    createdAt: time,
    updatedAt: time,
    startedAt: null,
    stoppedAt: null,
    ...(options.risk ? { risk: options.risk } : {}),
  };
  await store.deployments.insert(deployment);
  const pool: ExchangeClientPool = createExchangeClientPool({
    createExchange: async (_id, config) => binanceSpotAt(fake, config),
    retry: { maxAttempts: 3, baseDelayMs: 5, maxDelayMs: 20 },
    clock,
  });
  const credentials = {
    openSecrets: async () => ({
      id: credentialId,
      exchange: 'binance',
      testnet: false,
      secrets: { apiKey: FAKE_BINANCE_API_KEY, secret: FAKE_BINANCE_SECRET },
    }),
  } as unknown as CredentialService;
  const acquire = createDeploymentGateways({ credentials, exchanges: pool, store });
  const current = async () => (await store.deployments.findById(userId, deployment.id))!;
  const sandbox: LiveSandbox = createLiveSandbox({ callCpuTimeMs: 1000 });
  const placement = createOrderPlacement({ store, clock });
  const log = createDeploymentLogWriter({ store, clock, logger });
  const sync = createOrderSync({ store, clock, events: createInProcessEventBus(), placement, log });
  const runners = new Map<string, DeploymentRunner>();
  const all: DeploymentRunner[] = [];
  const leases = createDeploymentLeases({ store, logger, onLost: () => false });
  const stopFlow = createDeploymentStopFlow({
    store,
    clock,
    logger,
    log,
    sync,
    leases,
    runners,
    acquireGateway: acquire,
    stopPolling() {},
  });

  return {
    fake,
    store,
    clock,
    deployment,
    stopFlow,
    sync,
    acquireGateway: async () => acquire(await current()),
    async runner() {
      const runner = createDeploymentRunner(await current(), {
        store,
        clock,
        logger,
        marketData: flatMarketData(),
        sandbox,
        placement,
        orders: sync,
        log,
        acquireGateway: acquire,
        maxExchangeFailures: 1000,
        onCrash() {},
      });
      runners.set(deployment.id, runner);
      all.push(runner);
      return runner;
    },
    orders: async () => (await store.orders.listByDeployment(userId, deployment.id, { limit: 500 })).reverse(),
    logs: async () => (await store.deploymentLogs.list(userId, deployment.id, { limit: 1000 })).map((l) => l.message),
    current,
    async close() {
      for (const r of all) await r.halt();
      await sandbox.close();
      await stratbox.close();
      await pool.close();
      await fake.close();
    },
  };
}

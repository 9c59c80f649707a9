import { createApiHandlers, type ApiHandlers } from './api/handlers.js';
import { createApiKeyService } from './auth/api-keys.js';
import type { Authenticator } from './ports/authenticator.js';
import { createSystemClock, type Clock } from './ports/clock.js';
import { createJsonLogger, type Logger } from './ports/logger.js';
import type { Store } from './ports/store.js';
import type { SourceChecker } from './strategies/source.js';
import { createStrategyService } from './strategies/strategy-service.js';
import { createMemoryStore } from './testing/memory-store.js';
import type { EventBus } from './ports/event-bus.js';
import { createInProcessEventBus } from './events/in-process-event-bus.js';
import { createChannelService, createStoreChannelResolvers, type ChannelResolvers, type ChannelService } from './events/channel-service.js';
import type { JobQueue } from './ports/job-queue.js';
import type { MarketData } from './ports/market-data.js';
import { createInProcessJobQueue } from './queue/in-process-job-queue.js';
import { createMarketData } from './market-data/composite-market-data.js';
import type { StrategyRunner } from './ports/strategy-runner.js';
import { createBacktestService, type BacktestService } from './backtests/backtest-service.js';
import { createBacktestWorker, type BacktestRecovery } from './backtests/backtest-worker.js';
import { createOptimizationService, type OptimizationService } from './optimizations/optimization-service.js';
import { createOptimizationWorker } from './optimizations/optimization-worker.js';
import { createSandboxStrategyRunner } from './backtests/sandbox-strategy-runner.js';
import { pickStrategyRunner } from './backtests/strategy-runner-dep.js';
import { checkMaxBacktestTrades } from './backtests/stored-trades.js';
import { createSandboxPool, type SandboxPoolOptions } from './backtests/engine/backtest-pool.js';
import { checkSourceShape } from './sandbox/source-shape.js';
import { createBillingServices, type BillingConfig, type BillingServices } from './billing/create-billing-services.js';
import { createMarketplaceServices, type MarketplaceServices } from './marketplace/create-marketplace-services.js';
import type { SecretBox } from './ports/secret-box.js';
import { createAesGcmSecretBox, generateMasterKey } from './credentials/index.js';
import { createCredentialService, type CredentialService } from './credentials/credential-service.js';
import { createCandlePriceSource } from './exchanges/candle-price-source.js';
import { createMarketDataFundingSource } from './exchanges/paper-funding-source.js';
import { createExchangeClientPool, type ExchangeClientPool } from './exchanges/exchange-client-pool.js';
import { createMemoryExchangeBans } from './exchanges/memory-exchange-bans.js';
import type { ExchangeBans } from './ports/exchange-bans.js';
import { createStorePaperPersistence } from './exchanges/paper-persistence.js';
import { createLiveSandbox, type LiveSandboxOptions } from './deployments/live-sandbox.js';
import { createDeploymentService, type DeploymentService } from './deployments/deployment-service.js';
import { createDeploymentSupervisor, type DeploymentSupervisorOptions } from './deployments/supervisor.js';
import { createDeploymentLogWriter } from './deployments/deployment-log.js';
import { createNotifications } from './notifications/create-notifications.js';
import type { NotificationsConfig } from './notifications/notification-settings.js';
import type { NotificationService } from './notifications/notification-service.js';
import type { NotificationSender } from './ports/notification-sender.js';
import type { HostResolver } from './notifications/guarded-http.js';
import { createVerificationLoop, type VerificationLoop } from './marketplace/verification/verification-loop.js';
import { resolveVerificationSettings, type VerificationSettingsInput } from './marketplace/verification/verification-settings.js';
import { createDriftService, type DriftService } from './drift/drift-service.js';
import { createDriftRefreshLoop, type DriftRefreshLoop } from './drift/drift-refresh-loop.js';
import { resolveDriftSettings, type DriftSettingsInput } from './drift/drift-settings.js';

export interface StratboxConfig {
  /** Where records live. Default: an in-memory store (lost on exit); use @stratbox/store-kysely to persist. */
  store?: Store;
  clock?: Clock;
  logger?: Logger;
  /** Who is calling. Default: Stratbox API keys (`Bearer sbx_...`) stored hashed in the store. */
  authenticate?: Authenticator;
  /** Extra check of strategy sources at create and update (e.g. syntax). */
  checkSource?: SourceChecker;
  /** Real-time events by channel. Default: in process (eventemitter3); closed by `close()`. */
  events?: EventBus;
  /** Who may subscribe to which channel. Default: backtests and deployments from the store. */
  channelResolvers?: Partial<ChannelResolvers>;
  /** Background jobs (backtests). Default: in process. */
  queue?: JobQueue;
  /** Candles for backtests and charts. Default: imported CSV candles, else synthetic ones (offline). */
  marketData?: MarketData;
  /** Limits of the QuickJS sandbox pool (child processes), when `strategyRunner` is not given. */
  sandbox?: SandboxPoolOptions;
  /**
   * Runs strategy code for backtests and checks it before a save, a backtest or a deployment.
   * Default: `createSandboxStrategyRunner` on a QuickJS sandbox pool with the `sandbox` limits.
   * Closed by `close()`.
   */
  strategyRunner?: StrategyRunner;
  /** @deprecated Renamed `strategyRunner` (still accepted; give one of the two). */
  executor?: StrategyRunner;
  /**
   * The 32-byte master key that wraps exchange credentials' data keys (bytes or base64). Keep it
   * outside the database. Without it (and without `secretBox`) a random key is made and
   * credentials stored now cannot be opened after a restart.
   */
  masterKey?: Uint8Array | string;
  /** Encrypts exchange credentials. Default: AES-256-GCM envelope encryption under `masterKey`. */
  secretBox?: SecretBox;
  /** The payment provider (default: local, offline) and changes to the plan table. */
  billing?: BillingConfig;
  /** Backtests this process runs at once once `start()` is called (default 2; 0 runs none here). */
  workerConcurrency?: number;
  /**
   * Most trades one backtest stores (default 10,000, `DEFAULT_MAX_BACKTEST_TRADES`): the first
   * by entry time. A run that makes more keeps its metrics over every trade and says so with
   * `tradesTruncated`. Applies where backtests run (worker processes).
   */
  maxBacktestTrades?: number;
  /**
   * Backtests of one user this process runs at once (default 1). Users take turns: one user's
   * many queued backtests delay another user's by at most one run.
   */
  perUserConcurrency?: number;
  /**
   * Live deployments: how often they poll, when repeated exchange failures fail them, the
   * limits of their sandbox, and the exchange client pool (default: one per Stratbox, with the
   * `paper` exchange filling against the market data's candle closes).
   */
  deployments?: DeploymentSupervisorOptions & {
    sandbox?: LiveSandboxOptions;
    exchanges?: ExchangeClientPool;
    /**
     * Where the default exchange client pool keeps 429/418 bans per credential (default: this
     * process's memory). Give a shared one (`createRedisExchangeBans` of `@stratbox/queue-bullmq`)
     * when several processes trade on the same credentials. Ignored with `exchanges`: give that
     * pool its own `bans`.
     */
    exchangeBans?: ExchangeBans;
  };
  /**
   * What `start()` does about backtests a stop left queued or running. Default: `resubmit` when
   * `queue` is shared by several nodes (`queue.shared`, e.g. BullMQ), else `restart`.
   */
  backtestRecovery?: BacktestRecovery;
  /**
   * Optimizations this process runs at once once `start()` is called (default 2, one per user; 0 runs none
   * here), and slices of one optimization's trials run at once (default 2; each holds a sandbox
   * child for about a second, as the pool's per-user cap allows).
   */
  optimizations?: { concurrency?: number; parallelSlices?: number };
  /**
   * Notifications (docs/notifications.md): hosts admitted although private (`allowHosts`), the
   * Telegram and Discord bases, retries, flood control, and this node's sending concurrency.
   * `sender` and `lookup` replace the outbound senders and DNS (tests).
   */
  notifications?: NotificationsConfig & { sender?: NotificationSender; lookup?: HostResolver };
  /**
   * Verified listings (docs/verified-listings.md): the platform's run settings (fees, slippage,
   * funding, capital, backtest window), the evidence badge thresholds, and the loop that runs
   * platform backtests and advances forward records (`intervalMs`, `pageSize`, `concurrency`).
   * `start()` starts the loop on this node; `enabled: false` leaves it to other nodes.
   */
  verification?: VerificationSettingsInput & { enabled?: boolean };
  /**
   * Drift reports (docs/drift.md): the model the replay runs with (default: the paper exchange's
   * fees and slippage) and the daily refresh of running deployments' reports, which `start()`
   * starts on this node unless `refresh: false` (its first round one `refreshIntervalMs` after
   * the start).
   */
  drift?: DriftSettingsInput & { refresh?: boolean };
}

export interface Stratbox {
  readonly store: Store;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly authenticate: Authenticator;
  readonly strategies: ReturnType<typeof createStrategyService>;
  readonly users: Omit<ReturnType<typeof createApiKeyService>, 'authenticate'>;
  /** One handler per contract route, for adapters. */
  readonly api: ApiHandlers;
  /** Real-time events by channel (`backtest:<id>:progress`, `deployment:<id>:orders`). */
  readonly events: EventBus;
  /** Who may subscribe to which channel, and the snapshot a subscriber gets first. */
  readonly channels: ChannelService;
  readonly backtests: BacktestService;
  /** Parameter optimizations: trials, walk-forward validation, overfitting statistics (docs/research.md). */
  readonly optimizations: OptimizationService;
  readonly billing: BillingServices;
  readonly credentials: CredentialService;
  readonly deployments: DeploymentService;
  /** Notification channels, test sends, the delivery log and the events list (docs/notifications.md). */
  readonly notifications: NotificationService;
  /** The exchange clients deployments trade through (one per credential). */
  readonly exchanges: ExchangeClientPool;
  readonly marketplace: MarketplaceServices;
  /** Drift reports of deployments against their replayed backtest (docs/drift.md). */
  readonly drift: DriftService;
  /** The daily refresh of drift reports: `tick()` runs one round now (started by `start()` unless `drift.refresh: false`). */
  readonly driftRefresh: Pick<DriftRefreshLoop, 'tick'>;
  /** The platform's verification of listings: `tick()` runs one round now (started by `start()`). */
  readonly verification: Pick<VerificationLoop, 'tick'>;
  readonly marketData: MarketData;
  readonly queue: JobQueue;
  /**
   * Starts background work: recovers backtests a stop interrupted, then runs queued ones.
   * Without it the service answers requests but runs nothing.
   */
  start(): Promise<void>;
  /**
   * Stops background work and closes every part, the store last. A part that fails to close does
   * not keep the others open: all are closed, then the promise rejects with an AggregateError of
   * the failures. Idempotent: later calls return the first call's promise.
   */
  close(): Promise<void>;
}

/** Assembles the Stratbox services from ports, with in-process defaults for what is not given. */
export function createStratbox(config: StratboxConfig = {}): Stratbox {
  const store = config.store ?? createMemoryStore();
  const clock = config.clock ?? createSystemClock();
  const logger = config.logger ?? createJsonLogger();
  const apiKeys = createApiKeyService({ store, clock });
  const strategyRunner = pickStrategyRunner(config, 'createStratbox', () => createSandboxStrategyRunner(createSandboxPool(config.sandbox)));
  const checkSource =
    config.checkSource ??
    (async (source: string, context?: { userId: string }) => {
      // a linear scan here; the parse itself runs in the sandbox's check lane, never on this thread
      checkSourceShape(source);
      await strategyRunner.inspect(source, context ? { tenant: context.userId } : {});
    });
  const strategies = createStrategyService({ store, clock, checkSource });
  const events =
    config.events ??
    createInProcessEventBus({
      onHandlerError: (error, channel) => logger.error('Event handler failed', { channel, error: error instanceof Error ? error.message : String(error) }),
    });
  const queue = config.queue ?? createInProcessJobQueue();
  const marketData = config.marketData ?? createMarketData({ store, clock });
  if (!config.secretBox && !config.masterKey) {
    logger.warn('No masterKey given: exchange credentials stored now cannot be opened after a restart');
  }
  const secretBox = config.secretBox ?? createAesGcmSecretBox({ masterKey: config.masterKey ?? generateMasterKey() });
  const credentials = createCredentialService({ store, clock, secretBox });
  const billing = createBillingServices({ store, clock, logger, ...config.billing });
  const { enabled: verificationHere = true, ...verificationInput } = config.verification ?? {};
  const verificationSettings = resolveVerificationSettings(verificationInput);
  const verificationLoop = createVerificationLoop({ store, clock, logger, strategyRunner, marketData, settings: verificationSettings });
  const marketplace = createMarketplaceServices({
    store,
    clock,
    logger,
    billing,
    strategyRunner,
    verification: verificationSettings,
    onRecordCreated: () => verificationLoop.wake(),
  });
  const backtests = createBacktestService({
    store,
    clock,
    logger,
    events,
    queue,
    strategyRunner,
    beforeCreate: (userId) => billing.usage.reserveBacktest(userId),
    afterCreateFailed: (userId) => billing.usage.releaseBacktest(userId),
  });
  const optimizations = createOptimizationService({
    store,
    clock,
    logger,
    events,
    queue,
    strategyRunner,
    beforeCreate: (userId, trials) => billing.usage.assertOptimization(userId, trials),
  });
  const channels = createChannelService({
    resolvers: createStoreChannelResolvers(store, {
      backtest: (userId, id) => backtests.finalEvent(userId, id),
      optimization: (userId, id) => optimizations.finalEvent(userId, id),
      ...config.channelResolvers,
    }),
  });
  const worker = createBacktestWorker({
    store,
    clock,
    logger,
    events,
    queue,
    strategyRunner,
    marketData,
    concurrency: config.workerConcurrency ?? 2,
    ...(config.maxBacktestTrades === undefined ? {} : { maxStoredTrades: checkMaxBacktestTrades(config.maxBacktestTrades) }),
    ...(config.perUserConcurrency === undefined ? {} : { perUserConcurrency: config.perUserConcurrency }),
    ...(config.backtestRecovery ? { recovery: config.backtestRecovery } : {}),
    onCompute: (userId, ms, repos) => billing.usage.addCompute(userId, ms, repos),
  });
  const optimizationWorker = createOptimizationWorker({
    store,
    clock,
    logger,
    events,
    queue,
    strategyRunner,
    marketData,
    concurrency: config.optimizations?.concurrency ?? 2,
    ...(config.optimizations?.parallelSlices === undefined ? {} : { parallelSlices: config.optimizations.parallelSlices }),
    ...(config.backtestRecovery ? { recovery: config.backtestRecovery } : {}),
    onCompute: (userId, ms, repos) => billing.usage.addCompute(userId, ms, repos),
    assertComputeLeft: (userId) => billing.usage.assertComputeLeft(userId),
  });
  const exchanges =
    config.deployments?.exchanges ??
    createExchangeClientPool({
      clock,
      logger,
      bans: config.deployments?.exchangeBans ?? createMemoryExchangeBans(),
      paper: {
        prices: createCandlePriceSource({ marketData, clock }),
        funding: createMarketDataFundingSource({ marketData, clock }),
        clock,
        persistence: (credentialId, marketType) => createStorePaperPersistence(store, clock, credentialId, marketType),
      },
    });
  const liveSandbox = createLiveSandbox(config.deployments?.sandbox);
  const supervisor = createDeploymentSupervisor({
    store,
    clock,
    logger,
    events,
    marketData,
    credentials,
    exchanges,
    sandbox: liveSandbox,
    ...(config.deployments?.pollIntervalMs === undefined ? {} : { pollIntervalMs: config.deployments.pollIntervalMs }),
    ...(config.deployments?.maxExchangeFailures === undefined ? {} : { maxExchangeFailures: config.deployments.maxExchangeFailures }),
    ...(config.deployments?.run === undefined ? {} : { run: config.deployments.run }),
    ...(config.deployments?.scanIntervalMs === undefined ? {} : { scanIntervalMs: config.deployments.scanIntervalMs }),
    ...(config.deployments?.leaseMs === undefined ? {} : { leaseMs: config.deployments.leaseMs }),
    ...(config.deployments?.resumeConcurrency === undefined ? {} : { resumeConcurrency: config.deployments.resumeConcurrency }),
    ...(config.deployments?.scanPageSize === undefined ? {} : { scanPageSize: config.deployments.scanPageSize }),
    ...(config.deployments?.reconcileIntervalMs === undefined ? {} : { reconcileIntervalMs: config.deployments.reconcileIntervalMs }),
    ...(config.deployments?.orderStreamQuietMs === undefined ? {} : { orderStreamQuietMs: config.deployments.orderStreamQuietMs }),
    onCompute: (userId, ms) => void billing.usage.addCompute(userId, ms).catch(() => undefined),
  });
  const notifications = createNotifications({
    store,
    clock,
    logger,
    events,
    secretBox,
    ...(config.notifications ? { config: config.notifications } : {}),
    ...(config.notifications?.sender ? { sender: config.notifications.sender } : {}),
    ...(config.notifications?.lookup ? { lookup: config.notifications.lookup } : {}),
    channelLimit: async (userId) => (await billing.usage.context(userId)).plan.limits.notificationChannels,
  });
  const deployments = createDeploymentService({
    store,
    clock,
    credentials,
    strategyRunner,
    supervisor,
    log: createDeploymentLogWriter({ store, clock, logger }),
    assertDeploymentSlot: (userId, tx) => billing.usage.assertDeploymentSlot(userId, tx),
  });
  const { refresh: driftRefreshHere = true, ...driftInput } = config.drift ?? {};
  const driftSettings = resolveDriftSettings(driftInput);
  const driftAbort = new AbortController();
  const drift = createDriftService({
    store,
    clock,
    logger,
    strategyRunner,
    marketData,
    settings: driftSettings,
    signal: driftAbort.signal,
    metering: {
      assertComputeLeft: (userId) => billing.usage.assertComputeLeft(userId),
      addCompute: (userId, ms) => billing.usage.addCompute(userId, ms),
    },
  });
  const driftRefresh = createDriftRefreshLoop({
    store,
    logger,
    drift,
    intervalMs: driftSettings.refreshIntervalMs,
    pageSize: driftSettings.pageSize,
  });
  let deploymentsStarted: Promise<void> | undefined;
  let started: Promise<void> | undefined;
  let closing: Promise<void> | undefined;

  /** Closes every part even when some fail (the store last), then throws an AggregateError naming those that failed. */
  async function closeAll(): Promise<void> {
    const failures: Error[] = [];
    const parts: Array<[string, () => Promise<void>]> = [
      // Deployments keep their status: the next start() resumes them.
      ['deployment supervisor', () => supervisor.close()],
      ['notification loop', () => notifications.loop.close()],
      ['verification loop', () => verificationLoop.close()],
      [
        'drift refresh',
        () => {
          driftAbort.abort();
          return driftRefresh.close();
        },
      ],
      ['live sandbox', () => liveSandbox.close()],
      ['exchange clients', () => (config.deployments?.exchanges ? Promise.resolve() : exchanges.close())],
      ['job queue', () => queue.close()],
      ['strategy runner', () => strategyRunner.close()],
      ['event bus', () => events.close()],
      ['store', () => store.close()],
    ];
    for (const [name, close] of parts) {
      try {
        await close();
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        failures.push(new Error(`Closing the ${name} failed: ${message}`, { cause: error }));
        logger.error('Closing a part of Stratbox failed', { part: name, error: message });
      }
    }
    if (failures.length > 0)
      throw new AggregateError(failures, `Stratbox closed with ${failures.length} failure(s): ${failures.map((f) => f.message).join('; ')}`);
  }

  return {
    store,
    clock,
    logger,
    authenticate: config.authenticate ?? apiKeys.authenticate,
    strategies,
    users: { createUser: apiKeys.createUser, createApiKey: apiKeys.createApiKey },
    api: createApiHandlers({
      strategies,
      backtests,
      optimizations,
      marketData,
      billing,
      marketplace,
      credentials,
      deployments,
      notifications: notifications.service,
      drift,
    }),
    events,
    channels,
    backtests,
    optimizations,
    billing,
    marketplace,
    drift,
    driftRefresh: { tick: () => driftRefresh.tick() },
    verification: { tick: () => verificationLoop.tick() },
    credentials,
    deployments,
    notifications: notifications.service,
    exchanges,
    marketData,
    queue,
    start() {
      notifications.loop.start();
      if (verificationHere) verificationLoop.start();
      if (driftRefreshHere) driftRefresh.start();
      // Deployments that were running when the process ended resume; their orders are reconciled.
      deploymentsStarted ??= supervisor.start();
      const backtestsHere = (config.workerConcurrency ?? 2) > 0;
      const optimizationsHere = (config.optimizations?.concurrency ?? 2) > 0;
      started ??= Promise.all([backtestsHere ? worker.start() : undefined, optimizationsHere ? optimizationWorker.start() : undefined]).then(() => undefined);
      return Promise.all([started, deploymentsStarted]).then(() => undefined);
    },
    close() {
      closing ??= closeAll();
      return closing;
    },
  };
}

import {
  createCandlePriceSource,
  createExchangeClientPool,
  createMarketData,
  createStorePaperPersistence,
  createSystemClock,
  type Clock,
  type Logger,
  type StratboxConfig,
  type Store,
} from '@stratbox/core';
import { optionalInt } from './env-int.js';
import { createExchangeAt, readExchangeUrls } from './exchange-urls.js';

/*
 * Live-deployment settings of the example server, from the environment:
 * - STRATBOX_DEPLOYMENT_POLL_MS: how often running deployments poll (default 5000).
 * - STRATBOX_RUN_DEPLOYMENTS: `true` or `false`, whether this process runs live deployments.
 *   Default: every role but `api` (an `api` process never runs them). Any number of processes
 *   may: each deployment runs in the one process holding its lease in the Store.
 * - STRATBOX_DEPLOYMENT_LEASE_MS: how long a process's lease on a deployment lasts without
 *   renewal (default 15000): a dead process's deployments move to another process within about
 *   this plus STRATBOX_DEPLOYMENT_SCAN_MS.
 * - STRATBOX_DEPLOYMENT_SCAN_MS: how often a process looks for deployments to run: new ones an
 *   `api` process created, and those whose lease expired (default 10000).
 * - STRATBOX_DEPLOYMENT_RESUME_CONCURRENCY: how many deployments are started at once when the
 *   process starts (and at each scan); each forks a sandbox process (default 4).
 * - STRATBOX_EXCHANGE_URLS: JSON `{ "<ccxt exchange id>": "http://host:port" }` moving every API
 *   base URL of that exchange to another host: a local exchange emulator, a recording proxy,
 *   a test double. Never set it in production.
 * - STRATBOX_CLOCK_SPEED and STRATBOX_CLOCK_ORIGIN (epoch ms): for demos and tests, the service
 *   clock runs SPEED times faster than real time from ORIGIN on, so '1m' strategies trade every
 *   few seconds. Never set it in production.
 */

export function readDeploymentConfig(
  store: Store,
  logger: Logger,
  env: NodeJS.ProcessEnv = process.env,
): Pick<StratboxConfig, 'deployments' | 'clock' | 'marketData'> {
  const out: Pick<StratboxConfig, 'deployments' | 'clock' | 'marketData'> = {};
  let clock: Clock | undefined;
  const speed = Number(env.STRATBOX_CLOCK_SPEED ?? '1');
  if (Number.isFinite(speed) && speed > 1) {
    const origin = Number(env.STRATBOX_CLOCK_ORIGIN ?? Date.now());
    let last = 0;
    clock = {
      now() {
        last = Math.max(last, origin + (Date.now() - origin) * speed);
        return new Date(last);
      },
    };
    out.clock = clock;
    out.marketData = createMarketData({ store, clock });
    logger.warn('STRATBOX_CLOCK_SPEED is set: the service clock runs faster than real time', { speed });
  }
  const deployments: NonNullable<StratboxConfig['deployments']> = {};
  const run = env.STRATBOX_RUN_DEPLOYMENTS;
  if (run !== undefined && run !== '' && run !== 'true' && run !== 'false') throw new Error(`STRATBOX_RUN_DEPLOYMENTS must be true or false, got ${run}`);
  deployments.run = run ? run === 'true' : (env.STRATBOX_ROLE || 'all') !== 'api';
  const poll = Number(env.STRATBOX_DEPLOYMENT_POLL_MS ?? '');
  if (Number.isFinite(poll) && poll > 0) deployments.pollIntervalMs = poll;
  const lease = optionalInt(env, 'STRATBOX_DEPLOYMENT_LEASE_MS', 300);
  if (lease !== undefined) deployments.leaseMs = lease;
  const scan = optionalInt(env, 'STRATBOX_DEPLOYMENT_SCAN_MS', 50);
  if (scan !== undefined) deployments.scanIntervalMs = scan;
  const resume = optionalInt(env, 'STRATBOX_DEPLOYMENT_RESUME_CONCURRENCY', 1);
  if (resume !== undefined) deployments.resumeConcurrency = resume;
  const urls = readExchangeUrls(env);
  if (urls || clock) {
    deployments.exchanges = createExchangeClientPool({
      logger,
      ...(clock ? { clock } : {}),
      paper: {
        prices: createCandlePriceSource({ marketData: out.marketData ?? createMarketData({ store }), clock: clock ?? createSystemClock() }),
        ...(clock ? { clock } : {}),
        persistence: (credentialId, marketType) => createStorePaperPersistence(store, clock ?? createSystemClock(), credentialId, marketType),
      },
      createExchange: (exchangeId, config) =>
        createExchangeAt(urls, exchangeId, config, (url) => logger.warn('Exchange API moved by STRATBOX_EXCHANGE_URLS', { exchange: exchangeId, url })),
    });
  }
  out.deployments = deployments;
  return out;
}

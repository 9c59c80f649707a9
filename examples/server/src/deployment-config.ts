import {
  createCandlePriceSource,
  createExchangeClientPool,
  createMarketData,
  createMarketDataFundingSource,
  createStorePaperPersistence,
  createSystemClock,
  type Clock,
  type ExchangeBans,
  type Logger,
  type StratboxConfig,
  type Store,
} from '@stratbox/core';
import type { ServerEnv } from './env.js';
import { createExchangeAt } from './exchange-urls.js';

/**
 * Live-deployment settings of the example server, from the parsed environment (env.ts describes
 * each): STRATBOX_DEPLOYMENT_POLL_MS, STRATBOX_RUN_DEPLOYMENTS (default: every role but `api`;
 * any number of processes may run deployments, each one in the process holding its lease),
 * STRATBOX_DEPLOYMENT_LEASE_MS, STRATBOX_DEPLOYMENT_SCAN_MS,
 * STRATBOX_DEPLOYMENT_RESUME_CONCURRENCY; and, for tests and demos only, STRATBOX_EXCHANGE_URLS
 * (an exchange's API on another host) and STRATBOX_CLOCK_SPEED / STRATBOX_CLOCK_ORIGIN (the
 * service clock runs SPEED times faster than real time from ORIGIN on).
 */
export function readDeploymentConfig(
  store: Store,
  logger: Logger,
  env: ServerEnv,
  exchangeBans?: ExchangeBans,
): Pick<StratboxConfig, 'deployments' | 'clock' | 'marketData'> {
  const out: Pick<StratboxConfig, 'deployments' | 'clock' | 'marketData'> = {};
  let clock: Clock | undefined;
  const speed = env.STRATBOX_CLOCK_SPEED;
  if (speed > 1) {
    const origin = env.STRATBOX_CLOCK_ORIGIN ?? Date.now();
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
  deployments.run = env.STRATBOX_RUN_DEPLOYMENTS ?? env.STRATBOX_ROLE !== 'api';
  // 429/418 bans per credential, shared by every process when on Redis (exchange-bans-config.ts)
  if (exchangeBans) deployments.exchangeBans = exchangeBans;
  if (env.STRATBOX_DEPLOYMENT_POLL_MS !== undefined) deployments.pollIntervalMs = env.STRATBOX_DEPLOYMENT_POLL_MS;
  if (env.STRATBOX_DEPLOYMENT_LEASE_MS !== undefined) deployments.leaseMs = env.STRATBOX_DEPLOYMENT_LEASE_MS;
  if (env.STRATBOX_DEPLOYMENT_SCAN_MS !== undefined) deployments.scanIntervalMs = env.STRATBOX_DEPLOYMENT_SCAN_MS;
  if (env.STRATBOX_DEPLOYMENT_RESUME_CONCURRENCY !== undefined) deployments.resumeConcurrency = env.STRATBOX_DEPLOYMENT_RESUME_CONCURRENCY;
  const urls = env.STRATBOX_EXCHANGE_URLS;
  if (urls || clock) {
    const paperData = out.marketData ?? createMarketData({ store });
    deployments.exchanges = createExchangeClientPool({
      logger,
      ...(exchangeBans ? { bans: exchangeBans } : {}),
      ...(clock ? { clock } : {}),
      paper: {
        prices: createCandlePriceSource({ marketData: paperData, clock: clock ?? createSystemClock() }),
        funding: createMarketDataFundingSource({ marketData: paperData, clock: clock ?? createSystemClock() }),
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

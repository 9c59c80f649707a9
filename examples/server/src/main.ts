import { createServer } from 'node:http';
import { createJsonLogger, createStratbox } from '@stratbox/core';
import { attachStratboxWs } from '@stratbox/adapter-ws';
import { handleClientError } from '@stratbox/adapter-express';
import { readConfig } from './config.js';
import { parseEnv } from './env.js';
import { loadMasterKey } from './master-key.js';
import { createApp } from './create-app.js';
import { logDashboard } from './dashboard.js';
import { openStore } from './open-store.js';
import { readDeploymentConfig } from './deployment-config.js';
import { openQueue } from './open-queue.js';
import { readScaleOutConfig, runsJobs, servesHttp } from './roles.js';
import { readBacktestConfig } from './backtest-config.js';
import { openRateLimiter, readRateLimits } from './rate-limit-config.js';
import { openExchangeBans } from './exchange-bans-config.js';
import { readNotificationConfig } from './notification-config.js';

/**
 * Starts the Stratbox service in the role STRATBOX_ROLE says (api, worker or all, see
 * roles.ts); SIGTERM or SIGINT close it cleanly.
 */
async function main() {
  // every variable is checked here, once: a wrong one stops the start with an error naming it
  const env = parseEnv(process.env);
  const config = readConfig(env);
  const scale = readScaleOutConfig(env);
  const logger = createJsonLogger({ level: config.logLevel });
  const rateLimits = readRateLimits(env);
  const store = await openStore(config, logger);
  const { queue, events } = openQueue(scale, logger);
  const exchangeBans = openExchangeBans(scale, logger);
  const live = readDeploymentConfig(store, logger, env, exchangeBans);
  const stratbox = createStratbox({
    store,
    logger,
    masterKey: loadMasterKey(config, env, logger),
    ...live,
    ...readBacktestConfig(env),
    // an api node runs no background work: neither backtests nor live deployments
    ...(runsJobs(scale.role) ? {} : { deployments: { ...live.deployments, run: false } }),
    ...(queue ? { queue } : {}),
    ...(events ? { events } : {}),
    workerConcurrency: runsJobs(scale.role) ? scale.workerConcurrency : 0,
    // an api node runs no optimizations either; a worker node runs as many as it runs backtests
    optimizations: { concurrency: runsJobs(scale.role) ? scale.workerConcurrency : 0 },
    notifications: readNotificationConfig(env, runsJobs(scale.role)),
    // the platform's verification of listings (sandbox runs) belongs on nodes that run jobs
    verification: { enabled: runsJobs(scale.role) },
    // the daily refresh of drift reports (sandbox runs) too; a report asked for over HTTP is replayed on the node that answers
    drift: { refresh: runsJobs(scale.role) },
  });
  await stratbox.start();
  const backend = { store: config.databaseUrl ? 'postgres' : 'sqlite', queue: scale.redisUrl ? 'bullmq' : 'in-process', role: scale.role };
  if (scale.redisUrl && !config.databaseUrl && scale.role !== 'all') {
    logger.warn('REDIS_URL without DATABASE_URL: every process must then share one SQLite file on one machine');
  }

  if (!servesHttp(scale.role)) {
    logger.info('worker ready', { pid: process.pid, concurrency: scale.workerConcurrency, ...backend });
    let stopping = false;
    const stop = async (signal: string) => {
      if (stopping) return;
      stopping = true;
      logger.info('shutting down', { signal });
      await stratbox.close(); // running jobs go back to the queue for the other workers
      await exchangeBans?.close();
      logger.info('stopped');
      process.exit(0);
    };
    process.on('SIGTERM', () => void stop('SIGTERM'));
    process.on('SIGINT', () => void stop('SIGINT'));
    return;
  }

  const rateLimiter = await openRateLimiter(rateLimits, scale, logger);
  const server = createServer(
    createApp(stratbox, {
      rateLimiter,
      ...(config.trustProxy === undefined ? {} : { trustProxy: config.trustProxy }),
      ...(config.dashboardDir === undefined ? {} : { dashboardDir: config.dashboardDir }),
    }),
  );
  // requests Node's parser refuses (e.g. a 20 KB query string: 431) get a JSON error body too
  server.on('clientError', handleClientError);
  server.requestTimeout = 30_000;
  server.headersTimeout = 15_000;
  server.keepAliveTimeout = 5_000;
  // WebSocket channels at /ws on the same server and port as the HTTP API
  const realtime = attachStratboxWs(server, stratbox);

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, resolve);
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  logger.info('listening', { port, ...backend, pid: process.pid, dataDir: config.databaseUrl ? undefined : config.dataDir });
  if (config.dashboardDir !== false) logDashboard(logger, port, config.dashboardDir);

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info('shutting down', { signal });
    const force = setTimeout(() => server.closeAllConnections(), 10_000);
    force.unref();
    await realtime.close();
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeIdleConnections();
    });
    await stratbox.close();
    await exchangeBans?.close();
    logger.info('stopped');
    if (rateLimiter) await rateLimiter.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

main().catch((error: unknown) => {
  process.stderr.write(JSON.stringify({ level: 'error', msg: 'failed to start', error: error instanceof Error ? error.message : String(error) }) + '\n');
  process.exit(1);
});

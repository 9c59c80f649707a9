import { createServer } from 'node:http';
import { createJsonLogger, createStratbox } from '@stratbox/core';
import { attachStratboxWs } from '@stratbox/adapter-ws';
import { readConfig } from './config.js';
import { loadMasterKey } from './master-key.js';
import { createApp } from './create-app.js';
import { openStore } from './open-store.js';

/** Starts the complete Stratbox service; SIGTERM or SIGINT close it cleanly. */
async function main() {
  const config = readConfig();
  const logger = createJsonLogger({ level: config.logLevel });
  const store = await openStore(config);
  const stratbox = createStratbox({ store, logger, masterKey: loadMasterKey(config) });
  await stratbox.start();
  const server = createServer(createApp(stratbox));
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
  logger.info('listening', { port, store: config.databaseUrl ? 'postgres' : 'sqlite', dataDir: config.databaseUrl ? undefined : config.dataDir });

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
    logger.info('stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

main().catch((error: unknown) => {
  process.stderr.write(JSON.stringify({ level: 'error', msg: 'failed to start', error: error instanceof Error ? error.message : String(error) }) + '\n');
  process.exit(1);
});

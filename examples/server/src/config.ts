import { resolve } from 'node:path';

export interface ServerConfig {
  port: number;
  host: string;
  dataDir: string;
  databaseUrl: string | undefined;
  logLevel: 'debug' | 'info' | 'warn' | 'error';
  /** `STRATBOX_TRUST_PROXY`: Express's `trust proxy` (`true`, a hop count, or addresses/subnets), for client addresses behind a proxy. */
  trustProxy: boolean | number | string | undefined;
}

/** The example server's settings, from the environment. */
export function readConfig(env: NodeJS.ProcessEnv = process.env): ServerConfig {
  const port = Number(env.PORT ?? 3000);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`PORT must be a port number, got ${env.PORT}`);
  const logLevel = (env.LOG_LEVEL ?? 'info') as ServerConfig['logLevel'];
  if (!['debug', 'info', 'warn', 'error'].includes(logLevel)) throw new Error(`LOG_LEVEL must be debug, info, warn or error`);
  return {
    port,
    host: env.HOST ?? '0.0.0.0',
    dataDir: resolve(env.DATA_DIR ?? './.stratbox'),
    databaseUrl: env.DATABASE_URL || undefined,
    logLevel,
    trustProxy: trustProxy(env.STRATBOX_TRUST_PROXY),
  };
}

function trustProxy(raw: string | undefined): boolean | number | string | undefined {
  if (raw === undefined || raw === '') return undefined;
  if (raw === 'true' || raw === 'false') return raw === 'true';
  return /^\d+$/.test(raw) ? Number(raw) : raw;
}

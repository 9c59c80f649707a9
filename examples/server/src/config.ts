import { resolve } from 'node:path';
import type { ServerEnv } from './env.js';

export interface ServerConfig {
  port: number;
  host: string;
  dataDir: string;
  databaseUrl: string | undefined;
  logLevel: 'debug' | 'info' | 'warn' | 'error';
  /** `STRATBOX_TRUST_PROXY`: Express's `trust proxy` (`true`, a hop count, or addresses/subnets), for client addresses behind a proxy. */
  trustProxy: boolean | number | string | undefined;
  /** `STRATBOX_DASHBOARD_DIR`: the built dashboard to serve at `/` (undefined: the default, `false`: none). */
  dashboardDir: string | false | undefined;
}

/** The example server's settings, from the parsed environment (`parseEnv`). */
export function readConfig(env: ServerEnv): ServerConfig {
  return {
    port: env.PORT,
    host: env.HOST,
    dataDir: resolve(env.DATA_DIR),
    databaseUrl: env.DATABASE_URL,
    logLevel: env.LOG_LEVEL,
    trustProxy: env.STRATBOX_TRUST_PROXY,
    dashboardDir: typeof env.STRATBOX_DASHBOARD_DIR === 'string' ? resolve(env.STRATBOX_DASHBOARD_DIR) : env.STRATBOX_DASHBOARD_DIR,
  };
}

import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { createKyselyStore } from '@stratbox/store-kysely';
import type { ServerConfig } from './config.js';

/** PostgreSQL when DATABASE_URL is set, else SQLite in DATA_DIR. Migrates to the latest schema. */
export async function openStore(config: ServerConfig) {
  if (config.databaseUrl) {
    // `?schema=name` selects a PostgreSQL schema; it is ours, not a libpq parameter, so strip it.
    const url = new URL(config.databaseUrl);
    const schema = url.searchParams.get('schema') ?? undefined;
    url.searchParams.delete('schema');
    return createKyselyStore({ dialect: 'postgres', connectionString: url.toString(), ...(schema ? { schema } : {}) });
  }
  mkdirSync(config.dataDir, { recursive: true });
  return createKyselyStore({ dialect: 'sqlite', filename: join(config.dataDir, 'stratbox.sqlite') });
}

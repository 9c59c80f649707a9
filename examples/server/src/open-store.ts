import { join } from 'node:path';
import type { Logger } from '@stratbox/core';
import { createKyselyStore } from '@stratbox/store-kysely';
import type { ServerConfig } from './config.js';
import { ensurePrivateDir, ensurePrivateFile, PRIVATE_FILE_MODE, tightenMode } from './private-files.js';

/**
 * PostgreSQL when DATABASE_URL is set, else SQLite in DATA_DIR. Migrates to the latest schema.
 * DATA_DIR is made 0700 and the SQLite files (with `-wal` and `-shm`) 0600, as they hold every
 * seller's source; looser modes left by an older version are tightened, with a warning.
 */
export async function openStore(config: ServerConfig, logger?: Logger) {
  if (config.databaseUrl) {
    // `?schema=name` selects a PostgreSQL schema; it is ours, not a libpq parameter, so strip it.
    const url = new URL(config.databaseUrl);
    const schema = url.searchParams.get('schema') ?? undefined;
    url.searchParams.delete('schema');
    return createKyselyStore({ dialect: 'postgres', connectionString: url.toString(), ...(schema ? { schema } : {}) });
  }
  ensurePrivateDir(config.dataDir, logger);
  const filename = join(config.dataDir, 'stratbox.sqlite');
  ensurePrivateFile(filename, logger);
  for (const side of ['-wal', '-shm', '-journal']) tightenMode(filename + side, PRIVATE_FILE_MODE, logger);
  return createKyselyStore({ dialect: 'sqlite', filename });
}

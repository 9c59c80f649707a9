import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from '@stratbox/core';
import type { ServerConfig } from './config.js';
import type { ServerEnv } from './env.js';
import { ensurePrivateDir, PRIVATE_FILE_MODE, tightenMode } from './private-files.js';

/**
 * The key that wraps exchange credentials: `STRATBOX_MASTER_KEY` (32 bytes, base64, decoded by
 * `parseEnv`) if set, else `DATA_DIR/master.key`, created once with mode 0600. Keep it apart
 * from database backups.
 */
export function loadMasterKey(config: ServerConfig, env: Pick<ServerEnv, 'STRATBOX_MASTER_KEY'>, logger?: Logger): Uint8Array {
  const decode = (text: string, where: string) => {
    const key = Buffer.from(text.trim(), 'base64');
    if (key.length !== 32) throw new Error(`${where} must be 32 bytes, base64-encoded`);
    return new Uint8Array(key);
  };
  if (env.STRATBOX_MASTER_KEY) return env.STRATBOX_MASTER_KEY;
  const file = join(config.dataDir, 'master.key');
  if (existsSync(file)) {
    tightenMode(file, PRIVATE_FILE_MODE, logger);
    return decode(readFileSync(file, 'utf8'), file);
  }
  ensurePrivateDir(config.dataDir, logger);
  const key = randomBytes(32);
  writeFileSync(file, key.toString('base64') + '\n', { mode: 0o600, flag: 'wx' });
  return new Uint8Array(key);
}

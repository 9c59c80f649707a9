import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ServerConfig } from './config.js';

/**
 * The key that wraps exchange credentials: `STRATBOX_MASTER_KEY` (32 bytes, base64) if set,
 * else `DATA_DIR/master.key`, created once with mode 0600. Keep it apart from database backups.
 */
export function loadMasterKey(config: ServerConfig, env: NodeJS.ProcessEnv = process.env): Uint8Array {
  const fromEnv = env.STRATBOX_MASTER_KEY;
  const decode = (text: string, where: string) => {
    const key = Buffer.from(text.trim(), 'base64');
    if (key.length !== 32) throw new Error(`${where} must be 32 bytes, base64-encoded`);
    return new Uint8Array(key);
  };
  if (fromEnv) return decode(fromEnv, 'STRATBOX_MASTER_KEY');
  const file = join(config.dataDir, 'master.key');
  if (existsSync(file)) return decode(readFileSync(file, 'utf8'), file);
  mkdirSync(config.dataDir, { recursive: true });
  const key = randomBytes(32);
  writeFileSync(file, key.toString('base64') + '\n', { mode: 0o600, flag: 'wx' });
  return new Uint8Array(key);
}

import { chmodSync, closeSync, existsSync, mkdirSync, openSync, statSync } from 'node:fs';
import type { Logger } from '@stratbox/core';

/** Owner only: the data directory, and every file in it (sources, keys, credentials). */
export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/**
 * Makes `path` only its owner's: mode `mode` if it grants anything to group or others
 * (created with a looser mode by an older version, or by hand), with a warning saying so.
 * Missing paths are left alone.
 */
export function tightenMode(path: string, mode: number, logger?: Logger): void {
  if (!existsSync(path)) return;
  const current = statSync(path).mode & 0o777;
  if ((current & 0o077) === 0) return;
  chmodSync(path, mode);
  logger?.warn('tightened file mode: it was readable by other local users', { path, was: octal(current), now: octal(mode) });
}

/** Creates `dir` (and its missing parents) with mode 0700, or tightens an existing one. */
export function ensurePrivateDir(dir: string, logger?: Logger): void {
  if (!existsSync(dir)) {
    mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
    chmodSync(dir, PRIVATE_DIR_MODE); // whatever the umask
    return;
  }
  tightenMode(dir, PRIVATE_DIR_MODE, logger);
}

/**
 * Creates `file` empty with mode 0600 if it does not exist, else tightens it. SQLite gives its
 * `-wal`, `-shm` and `-journal` files the mode of the database file, so creating the database
 * file first this way keeps them private too.
 */
export function ensurePrivateFile(file: string, logger?: Logger): void {
  if (!existsSync(file)) {
    closeSync(openSync(file, 'a', PRIVATE_FILE_MODE));
    chmodSync(file, PRIVATE_FILE_MODE);
    return;
  }
  tightenMode(file, PRIVATE_FILE_MODE, logger);
}

const octal = (mode: number) => '0' + mode.toString(8).padStart(3, '0');

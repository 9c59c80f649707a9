import { chmodSync, existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createStratboxClient } from '@stratbox/client';
import { waitFor } from './harness/deferred.js';
import { createUserWithCli, startServerProcess, tempDataDir, type ServerProcess } from './harness/server-process.js';

/*
 * DATA_DIR holds every seller's strategy source (stratbox.sqlite) and the key that wraps exchange
 * credentials (master.key): no other local user may read them. The example server creates the
 * directory 0700 and its files 0600, SQLite's -wal and -shm side files included, and tightens
 * a directory or file an older version left looser, with a warning in its log.
 */

const mode = (path: string) => (statSync(path).mode & 0o777).toString(8);
const parsed = (lines: string[]) =>
  lines.flatMap((line) => {
    try {
      return [JSON.parse(line) as Record<string, unknown>];
    } catch {
      return [];
    }
  });

describe.skipIf(process.platform === 'win32')('data directory permissions', () => {
  const temp = tempDataDir();
  const servers: ServerProcess[] = [];

  afterAll(async () => {
    for (const server of servers) await server.stop();
    temp.remove();
  });

  it('a fresh DATA_DIR is 0700, stratbox.sqlite and its -wal and -shm 0600, master.key 0600', async () => {
    const dir = join(temp.dir, 'fresh', 'data');
    const server = await startServerProcess({ DATA_DIR: dir });
    servers.push(server);
    // a write, so that SQLite has its side files open
    const { apiKey } = await createUserWithCli('alice', { DATA_DIR: dir });
    await createStratboxClient({ baseUrl: server.baseUrl, apiKey }).strategies.create({ body: { name: 'secret', source: 'export function onCandle() {}' } });
    const db = join(dir, 'stratbox.sqlite');
    await waitFor('the SQLite -wal and -shm files', () => existsSync(db + '-wal') && existsSync(db + '-shm'));

    expect(mode(dir)).toBe('700');
    expect(mode(db)).toBe('600');
    expect(mode(db + '-wal')).toBe('600');
    expect(mode(db + '-shm')).toBe('600');
    expect(mode(join(dir, 'master.key'))).toBe('600');
  });

  it('an existing DATA_DIR and files readable by others are tightened, and the log says so', async () => {
    const dir = join(temp.dir, 'old');
    mkdirSync(dir, { mode: 0o755 });
    chmodSync(dir, 0o755);
    const db = join(dir, 'stratbox.sqlite');
    writeFileSync(db, '');
    chmodSync(db, 0o644);
    writeFileSync(join(dir, 'master.key'), Buffer.alloc(32, 7).toString('base64') + '\n');
    chmodSync(join(dir, 'master.key'), 0o644);

    const server = await startServerProcess({ DATA_DIR: dir });
    servers.push(server);
    expect(mode(dir)).toBe('700');
    expect(mode(db)).toBe('600');
    expect(mode(join(dir, 'master.key'))).toBe('600');
    const warnings = parsed(server.lines).filter((entry) => entry.level === 'warn' && String(entry.msg).includes('tightened'));
    expect(warnings.map((entry) => entry.path).sort()).toEqual([dir, db, join(dir, 'master.key')].sort());
    expect(warnings.find((entry) => entry.path === dir)).toMatchObject({ was: '0755', now: '0700' });
  });
});

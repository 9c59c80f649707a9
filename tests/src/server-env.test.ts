import { describe, expect, it } from 'vitest';
import { NODE_ARGS, SERVER_DIR, STRATBOX_BIN } from './harness/paths.js';
import { runNode } from './harness/run-node.js';
import { tempDataDir } from './harness/server-process.js';

/**
 * The example server and its command check their whole environment when they start (env.ts):
 * a wrong variable stops them before anything is opened, with an error naming it.
 */
describe('the example server environment, checked at start', () => {
  it('the server refuses to start, naming every wrong variable, and creates nothing', async () => {
    const data = tempDataDir();
    try {
      const run = await runNode([...NODE_ARGS, 'src/main.ts'], {
        cwd: SERVER_DIR,
        env: {
          DATA_DIR: `${data.dir}/never`,
          PORT: 'http',
          LOG_LEVEL: 'loud',
          STRATBOX_QUEUE_LOCK_MS: '10',
          DATABASE_URL: '',
          REDIS_URL: '',
          STRATBOX_ROLE: '',
        },
        timeoutMs: 60_000,
      });
      expect(run.code).toBe(1);
      const entry = JSON.parse(run.stderr.trim().split('\n').at(-1)!) as { msg: string; error: string };
      expect(entry.msg).toBe('failed to start');
      expect(entry.error).toBe(
        'Invalid environment: PORT must be a port number (0 to 65535), got http; LOG_LEVEL must be debug, info, warn or error, got loud; ' +
          'STRATBOX_QUEUE_LOCK_MS must be an integer of at least 500, got 10',
      );
      expect(run.stdout).toBe('');
    } finally {
      data.remove();
    }
  });

  it('the stratbox command names the wrong variable too, while --help works whatever the environment', async () => {
    const env = { STRATBOX_RATE_LIMIT: '5 per minute', DATABASE_URL: '', REDIS_URL: '', STRATBOX_ROLE: '' };
    const bad = await runNode([STRATBOX_BIN, 'create-user', 'alice'], { cwd: SERVER_DIR, env, timeoutMs: 60_000 });
    expect(bad.code).toBe(1);
    expect(bad.stdout).toBe('');
    expect(bad.stderr).toContain('error: Invalid environment: STRATBOX_RATE_LIMIT must look like 1200/60s, 1200/1m, 20/s or 5000/1h, got 5 per minute');
    const help = await runNode([STRATBOX_BIN, '--help'], { cwd: SERVER_DIR, env, timeoutMs: 60_000 });
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('create-user');
  });
});

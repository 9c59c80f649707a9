import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createStratbox } from '../create-stratbox.js';
import { createSilentLogger } from '../ports/logger.js';
import { stuckWorker } from '../sandbox/testing/stuck-worker.js';

/*
 * A deployment whose sandbox child never gets ready (a real child process that stalls) fails
 * with a clear reason once the start timeout passes, its child killed; the deployment's lock is
 * released, so a restart runs (and fails the same way) instead of waiting forever.
 */

const SOURCE = `export const meta = { timeframe: '1m' };\nexport function onCandle() {}\n`;

describe('a live sandbox that never starts', () => {
  const dir = mkdtempSync(join(tmpdir(), 'stratbox-stuck-'));
  const { path, pidFile } = stuckWorker(dir);
  const stratbox = createStratbox({
    logger: createSilentLogger(),
    workerConcurrency: 0,
    deployments: { sandbox: { workerPath: path, readyTimeoutMs: 400 }, pollIntervalMs: 50 },
  });
  afterAll(async () => {
    await stratbox.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function failedOf(userId: string, id: string, timeoutMs = 20_000) {
    const start = Date.now();
    for (;;) {
      const d = await stratbox.deployments.get(userId, id);
      if (d.status === 'failed') return d;
      if (Date.now() - start > timeoutMs) throw new Error(`deployment still ${d.status}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  it('fails the deployment with TIMEOUT and a clear message, kills the child and releases the lock', async () => {
    await stratbox.start();
    const { userId } = await stratbox.users.createUser('alice');
    const strategy = await stratbox.strategies.create(userId, { name: 'idle', description: '', source: SOURCE, marketType: 'LINEAR' });
    const credential = await stratbox.credentials.create(userId, { exchange: 'paper', label: 'paper', apiKey: 'k', secret: 's', testnet: false });
    const created = await stratbox.deployments.create(userId, { strategyId: strategy.id, credentialId: credential.id, symbols: ['BTC/USDT:USDT'], params: {} });

    const failed = await failedOf(userId, created.id);
    expect(failed.error).toEqual({ code: 'TIMEOUT', message: 'The sandbox process did not start within 400 ms and was stopped' });
    const pid = Number(readFileSync(pidFile, 'utf8'));
    expect(() => process.kill(pid, 0)).toThrow();
    const logs = await stratbox.deployments.logs(userId, created.id, {});
    expect(logs.map((l) => l.message)).toContain('Deployment failed (TIMEOUT): The sandbox process did not start within 400 ms and was stopped');

    // The lock is free: a restart goes through starting again and fails the same way.
    const restarted = await stratbox.deployments.restart(userId, created.id);
    expect(restarted.status).toBe('starting');
    expect((await failedOf(userId, created.id)).error?.code).toBe('TIMEOUT');
  }, 60_000);
});

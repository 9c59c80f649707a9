import { afterAll, describe, expect, it } from 'vitest';
import { createStratbox, type Stratbox } from '../create-stratbox.js';
import { createSilentLogger } from '../ports/logger.js';
import type { DeploymentRecord, Store } from '../ports/store.js';
import { createMemoryStore } from '../testing/memory-store.js';
import { newId } from '../util/ids.js';

/*
 * Resuming at start: every deployment left running is resumed, however many pages of the Store
 * they take, and at most `resumeConcurrency` are being started (a sandbox process forked, the
 * strategy warmed up) at once. Observed through the Store the real supervisor calls.
 */

const SOURCE = `export const meta = { timeframe: '1m' };\nexport function onCandle() {}\n`;
const COUNT = 7;

describe('resuming deployments at start', () => {
  const base = createMemoryStore();
  const starting = new Set<string>();
  const resumed = new Set<string>();
  const pages: Array<{ after: string | null; rows: number }> = [];
  let maxStarting = 0;
  // The real memory store; the lease and log calls the supervisor makes are watched.
  const store: Store = {
    ...base,
    deployments: {
      ...base.deployments,
      async listByStatus(statuses, limit, after) {
        const rows = await base.deployments.listByStatus(statuses, limit, after);
        pages.push({ after: after?.id ?? null, rows: rows.length });
        return rows;
      },
      async acquireLease(id, ...rest) {
        if (!resumed.has(id)) starting.add(id);
        maxStarting = Math.max(maxStarting, starting.size);
        return base.deployments.acquireLease(id, ...rest);
      },
    },
    deploymentLogs: {
      ...base.deploymentLogs,
      async append(lines) {
        for (const line of lines) {
          if (line.message.startsWith('Deployment resumed after a restart')) {
            starting.delete(line.deploymentId);
            resumed.add(line.deploymentId);
          }
        }
        return base.deploymentLogs.append(lines);
      },
    },
  };
  const stratbox: Stratbox = createStratbox({
    store,
    logger: createSilentLogger(),
    workerConcurrency: 0,
    deployments: { resumeConcurrency: 2, scanPageSize: 3, pollIntervalMs: 1000 },
  });
  afterAll(() => stratbox.close());

  it('resumes every deployment, page by page, at most resumeConcurrency at a time', async () => {
    const { userId } = await stratbox.users.createUser('alice');
    const strategy = await stratbox.strategies.create(userId, { name: 'idle', description: '', source: SOURCE, marketType: 'LINEAR' });
    const credential = await stratbox.credentials.create(userId, { exchange: 'paper', label: 'paper', apiKey: 'k', secret: 's', testnet: false });
    // Left running by a process that ended, as the Store holds them at the next start.
    const time = new Date().toISOString();
    const ids: string[] = [];
    for (let i = 0; i < COUNT; i++) {
      const d: DeploymentRecord = {
        id: newId('deployment'),
        userId,
        strategyId: strategy.id,
        strategyVersion: 1,
        credentialId: credential.id,
        symbols: [`C${i}/USDT:USDT`],
        params: {},
        status: 'running',
        error: null,
        createdAt: time,
        updatedAt: time,
        startedAt: time,
        stoppedAt: null,
      };
      await base.deployments.insert(d);
      ids.push(d.id);
    }

    await stratbox.start();
    const started = Date.now();
    while (resumed.size < COUNT) {
      if (Date.now() - started > 90_000) throw new Error(`only ${resumed.size} of ${COUNT} resumed`);
      await new Promise((r) => setTimeout(r, 20));
    }
    expect([...resumed].sort()).toEqual([...ids].sort());
    expect(maxStarting).toBe(2);
    // Three pages of at most 3 rows: 3, 3, 1.
    expect(pages.slice(0, 3).map((p) => p.rows)).toEqual([3, 3, 1]);
    expect(pages[1]!.after).not.toBeNull();
    expect(new Set(await Promise.all(ids.map(async (id) => (await stratbox.deployments.get(userId, id)).status)))).toEqual(new Set(['running']));
  }, 120_000);
});

import { describe, expect, it } from 'vitest';
import { createSilentLogger } from '../ports/logger.js';
import type { DeploymentRecord, Store } from '../ports/store.js';
import { createDriftRefreshLoop } from './drift-refresh-loop.js';

/* The daily refresh: every running deployment, page by page; a failed one is logged and the round goes on. */

const deployment = (id: string, createdAt: string) => ({ id, createdAt }) as DeploymentRecord;

describe('drift refresh loop', () => {
  it('refreshes every running deployment across pages; one without candles or failing does not stop the round', async () => {
    const running = [deployment('dep_a', '2026-01-01'), deployment('dep_b', '2026-01-02'), deployment('dep_c', '2026-01-03')];
    const asked: string[] = [];
    const loop = createDriftRefreshLoop({
      store: {
        deployments: {
          listByStatus: async (statuses: string[], limit: number, after?: { id: string }) => {
            expect(statuses).toEqual(['running']);
            const from = after ? running.findIndex((d) => d.id === after.id) + 1 : 0;
            return running.slice(from, from + limit);
          },
        },
      } as unknown as Pick<Store, 'deployments'>,
      logger: createSilentLogger(),
      drift: {
        refresh: async (d) => {
          asked.push(d.id);
          if (d.id === 'dep_b') throw new Error('replay failed');
          return d.id === 'dep_c' ? null : ({} as never);
        },
      },
      intervalMs: 86_400_000,
      pageSize: 2,
    });
    expect(await loop.tick()).toEqual({ refreshed: 1, empty: 1, failed: 1 });
    expect(asked).toEqual(['dep_a', 'dep_b', 'dep_c']);
    loop.start();
    await loop.close();
    await loop.close();
  });
});

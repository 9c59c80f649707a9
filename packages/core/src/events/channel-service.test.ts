import { describe, expect, it } from 'vitest';
import { createMemoryStore } from '../testing/memory-store.js';
import { createChannelService, createStoreChannelResolvers } from './channel-service.js';

const A = 'usr_AAAAAAAAAAAAAAAAAAAAAA';
const B = 'usr_BBBBBBBBBBBBBBBBBBBBBB';
const BT = 'bt_AAAAAAAAAAAAAAAAAAAAAA';
const DEP = 'dep_AAAAAAAAAAAAAAAAAAAAAA';
const now = '2026-01-02T03:04:05.000Z';

describe('the channel service', () => {
  it('grants a backtest channel to its owner with the final state of a finished run', async () => {
    const final = { backtestId: BT, status: 'completed' as const, progress: 1, processedBars: 10, totalBars: 10 };
    const channels = createChannelService({
      resolvers: createStoreChannelResolvers(createMemoryStore(), { backtest: async (userId, id) => (userId === A && id === BT ? { final } : null) }),
    });
    await expect(channels.authorize(A, `backtest:${BT}:progress`)).resolves.toEqual({
      channel: `backtest:${BT}:progress`,
      kind: 'backtest',
      id: BT,
      snapshot: final,
    });
  });

  it("answers the same NOT_FOUND for another user's record and for a missing one", async () => {
    const store = createMemoryStore();
    await store.deployments.insert({
      id: DEP,
      userId: A,
      strategyId: 'str_AAAAAAAAAAAAAAAAAAAAAA',
      strategyVersion: 1,
      credentialId: 'cred_AAAAAAAAAAAAAAAAAAAAAA',
      symbols: ['BTC/USDT:USDT'],
      params: {},
      status: 'running',
      error: null,
      createdAt: now,
      updatedAt: now,
      startedAt: now,
      stoppedAt: null,
    });
    const channels = createChannelService({ resolvers: createStoreChannelResolvers(store) });
    await expect(channels.authorize(A, `deployment:${DEP}:orders`)).resolves.toMatchObject({ kind: 'deployment', id: DEP, snapshot: null });
    const theirs = await channels.authorize(B, `deployment:${DEP}:orders`).catch((e: unknown) => e);
    const missing = await channels.authorize(B, 'deployment:dep_ZZZZZZZZZZZZZZZZZZZZZZ:orders').catch((e: unknown) => e);
    expect(theirs).toMatchObject({ code: 'NOT_FOUND', message: `Channel deployment:${DEP}:orders not found` });
    expect(missing).toMatchObject({ code: 'NOT_FOUND', message: 'Channel deployment:dep_ZZZZZZZZZZZZZZZZZZZZZZ:orders not found' });
    // backtests are not found until a resolver is configured
    await expect(channels.authorize(A, `backtest:${BT}:progress`)).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('rejects a malformed channel name with VALIDATION_FAILED', async () => {
    const channels = createChannelService({ resolvers: createStoreChannelResolvers(createMemoryStore()) });
    await expect(channels.authorize(A, 'backtest:nope:progress')).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
  });
});

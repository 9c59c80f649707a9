import { describe, expect, it } from 'vitest';
import { createStratbox } from '../create-stratbox.js';
import { createSilentLogger } from '../ports/logger.js';
import { StratboxError } from '../errors/stratbox-error.js';
import { newId } from '../util/ids.js';

const SOURCE = 'export function onCandle(ctx, candle) {}';

async function setup() {
  const stratbox = createStratbox({ logger: createSilentLogger() });
  const { userId } = await stratbox.users.createUser('u');
  return { stratbox, userId, s: stratbox.strategies };
}

const create = (s: Awaited<ReturnType<typeof setup>>['s'], userId: string, source = SOURCE) =>
  s.create(userId, { name: 'n', description: '', source, marketType: 'LINEAR' });

describe('strategy service', () => {
  it('versions only on a source change; the same source again is not a new version', async () => {
    const { s, userId } = await setup();
    const created = await create(s, userId);
    expect((await s.update(userId, created.id, { source: SOURCE })).version).toBe(1);
    expect((await s.update(userId, created.id, { description: 'd' })).version).toBe(1);
    const v2 = await s.update(userId, created.id, { source: SOURCE + '\n' });
    expect(v2.version).toBe(2);
    expect(v2.versions.map((v) => v.version)).toEqual([2, 1]);
    expect(v2.updatedAt >= created.updatedAt).toBe(true);
  });

  it('refuses to delete a strategy with an active deployment, and keeps it', async () => {
    const { stratbox, s, userId } = await setup();
    const created = await create(s, userId);
    const now = new Date().toISOString();
    const deployment = {
      id: newId('deployment'),
      userId,
      strategyId: created.id,
      strategyVersion: 1,
      credentialId: newId('credential'),
      symbols: ['BTC/USDT:USDT'],
      params: {},
      status: 'running' as const,
      error: null,
      createdAt: now,
      updatedAt: now,
      startedAt: now,
      stoppedAt: null,
    };
    await stratbox.store.deployments.insert(deployment);
    const error = await s.delete(userId, created.id).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StratboxError);
    expect(error).toMatchObject({ code: 'CONFLICT', status: 409 });
    expect((await s.get(userId, created.id)).id).toBe(created.id);

    // a stopped deployment no longer blocks deletion
    const other = await create(s, userId);
    await stratbox.store.deployments.insert({ ...deployment, id: newId('deployment'), strategyId: other.id, status: 'stopped' });
    await s.delete(userId, other.id);
    await expect(s.get(userId, other.id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('measures the source in bytes of UTF-8', async () => {
    const { s, userId } = await setup();
    const base = 'export function onCandle() {}\n//'; // 32 bytes, then 3-byte characters
    await expect(create(s, userId, base + '€'.repeat(170_657))).rejects.toMatchObject({ code: 'PAYLOAD_TOO_LARGE', status: 413 });
    const fits = await create(s, userId, base + '€'.repeat(170_656));
    expect(fits.versions[0]!.sizeBytes).toBe(512_000);
  });

  it('runs the configured source check at create and update, and stores nothing when it refuses', async () => {
    const stratbox = createStratbox({
      logger: createSilentLogger(),
      checkSource: (source) => {
        if (source.includes('syntax error')) throw new StratboxError('VALIDATION_FAILED', 'Syntax error at 1:1', { line: 1, column: 1 });
      },
    });
    const { userId } = await stratbox.users.createUser('u');
    await expect(stratbox.strategies.create(userId, { name: 'n', description: '', source: 'syntax error', marketType: 'LINEAR' })).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
      details: { line: 1, column: 1 },
    });
    expect((await stratbox.strategies.list(userId, {})).strategies).toEqual([]);
    const ok = await stratbox.strategies.create(userId, { name: 'n', description: '', source: SOURCE, marketType: 'LINEAR' });
    await expect(stratbox.strategies.update(userId, ok.id, { source: 'syntax error' })).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
    expect((await stratbox.strategies.get(userId, ok.id)).version).toBe(1);
  });

  it('bumps versions without gaps or duplicates under concurrent updates', async () => {
    const { s, userId } = await setup();
    const created = await create(s, userId);
    await Promise.all(Array.from({ length: 10 }, (_, i) => s.update(userId, created.id, { source: `${SOURCE} // ${i}` })));
    const after = await s.get(userId, created.id);
    expect(after.version).toBe(11);
    expect(after.versions.map((v) => v.version)).toEqual([11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1]);
  });
});

import { beforeEach, describe, expect, it } from 'vitest';
import { StratboxError } from '../errors/stratbox-error.js';
import type { DeploymentRecord, Store } from '../ports/store.js';
import type { DeploymentStatus } from '@stratbox/contract';
import { createMemoryStore } from '../testing/memory-store.js';
import { newId } from '../util/ids.js';
import { createAesGcmSecretBox, generateMasterKey } from './create-secret-box.js';
import { createCredentialService, credentialAad, type CredentialService } from './credential-service.js';

const SECRET = 'S3cr3t-value-that-must-never-leak-9f8e7d';
const API_KEY = 'AKIA-live-key-0123456789-WXYZ';
const clock = { now: () => new Date('2026-01-02T03:04:05.000Z') };

const body = (overrides: Record<string, unknown> = {}) => ({
  exchange: 'binanceusdm',
  label: 'Main',
  apiKey: API_KEY,
  secret: SECRET,
  testnet: false,
  ...overrides,
});

async function failure(promise: Promise<unknown>): Promise<StratboxError> {
  const error = await promise.then(
    () => {
      throw new Error('expected a StratboxError');
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(StratboxError);
  return error as StratboxError;
}

function deployment(userId: string, credentialId: string, status: DeploymentStatus): DeploymentRecord {
  const now = clock.now().toISOString();
  return {
    id: newId('deployment'),
    userId,
    strategyId: newId('strategy'),
    strategyVersion: 1,
    credentialId,
    symbols: ['BTC/USDT:USDT'],
    params: {},
    status,
    error: null,
    createdAt: now,
    updatedAt: now,
    startedAt: null,
    stoppedAt: null,
  };
}

describe('createCredentialService', () => {
  let store: Store;
  let service: CredentialService;
  const alice = newId('user');
  const bob = newId('user');

  beforeEach(() => {
    store = createMemoryStore();
    service = createCredentialService({ store, clock, secretBox: createAesGcmSecretBox({ masterKey: generateMasterKey() }) });
  });

  it('creates a credential and returns it without secrets, with the last 4 characters of the key', async () => {
    const created = await service.create(alice, body({ password: 'pass-phrase-1', testnet: true }));
    expect(created).toEqual({ id: created.id, exchange: 'binanceusdm', label: 'Main', testnet: true, keyHint: 'WXYZ', createdAt: '2026-01-02T03:04:05.000Z' });
    expect(created.id).toMatch(/^cred_[A-Za-z0-9_-]{22}$/);
    expect(await service.get(alice, created.id)).toEqual(created);
    expect(await service.list(alice, {})).toEqual({ credentials: [created], nextCursor: null });
  });

  it('stores only sealed secrets: neither the key nor the secret is in the stored bytes', async () => {
    const created = await service.create(alice, body({ password: 'pass-phrase-1' }));
    const record = (await store.credentials.findById(alice, created.id))!;
    const stored = Buffer.from(record.secrets);
    for (const plain of [SECRET, API_KEY, 'pass-phrase-1']) expect(stored.includes(Buffer.from(plain))).toBe(false);
    expect(JSON.stringify({ ...record, secrets: stored.toString('base64') })).not.toContain(SECRET);
  });

  it('opens the secrets for the supervisor, bound to the credential and its owner', async () => {
    const created = await service.create(alice, body({ password: 'pass-phrase-1' }));
    expect(await service.openSecrets(alice, created.id)).toEqual({
      id: created.id,
      userId: alice,
      exchange: 'binanceusdm',
      label: 'Main',
      testnet: false,
      secrets: { apiKey: API_KEY, secret: SECRET, password: 'pass-phrase-1' },
    });
    const withoutPassword = await service.create(alice, body());
    expect((await service.openSecrets(alice, withoutPassword.id)).secrets).toEqual({ apiKey: API_KEY, secret: SECRET });
    expect((await failure(service.openSecrets(bob, created.id))).code).toBe('NOT_FOUND');
  });

  it('cannot open a sealed row copied to another credential or another user', async () => {
    const box = createAesGcmSecretBox({ masterKey: generateMasterKey() });
    const own = createCredentialService({ store, clock, secretBox: box });
    const victim = await own.create(alice, body());
    const attacker = await own.create(bob, body({ secret: 'bobs-own-secret' }));
    const stolen = (await store.credentials.findById(alice, victim.id))!.secrets;
    // Bob's row, with Alice's sealed bytes pasted in.
    const bobRecord = (await store.credentials.findById(bob, attacker.id))!;
    await store.credentials.delete(bob, attacker.id);
    await store.credentials.insert({ ...bobRecord, secrets: stolen });
    const error = await failure(own.openSecrets(bob, attacker.id));
    expect(error.code).toBe('INTERNAL');
    expect(error.message).not.toContain(SECRET);
    await expect(box.open(stolen, credentialAad(attacker.id, bob))).rejects.toThrow();
  });

  it("scopes every method to the owner: another user's credential is NOT_FOUND and stays", async () => {
    const created = await service.create(alice, body());
    for (const call of [() => service.get(bob, created.id), () => service.delete(bob, created.id), () => service.openSecrets(bob, created.id)]) {
      const error = await failure(call());
      expect(error.code).toBe('NOT_FOUND');
      expect(error.message).toBe(`Credential ${created.id} not found`);
    }
    expect(await service.list(bob, {})).toEqual({ credentials: [], nextCursor: null });
    expect(await service.get(alice, created.id)).toEqual(created);
  });

  it('lists newest first, page by page', async () => {
    let t = Date.parse('2026-01-01T00:00:00.000Z');
    const ticking = createCredentialService({
      store,
      clock: { now: () => new Date((t += 1000)) },
      secretBox: createAesGcmSecretBox({ masterKey: generateMasterKey() }),
    });
    const made = [];
    for (let i = 0; i < 5; i++) made.push(await ticking.create(alice, body({ label: `k${i}` })));
    const first = await ticking.list(alice, { limit: 2 });
    expect(first.credentials.map((c) => c.label)).toEqual(['k4', 'k3']);
    const second = await ticking.list(alice, { limit: 2, cursor: first.nextCursor! });
    expect(second.credentials.map((c) => c.label)).toEqual(['k2', 'k1']);
    const third = await ticking.list(alice, { limit: 2, cursor: second.nextCursor! });
    expect(third).toEqual({ credentials: [made[0]], nextCursor: null });
  });

  it('accepts ccxt exchange ids and paper; refuses anything else with VALIDATION_FAILED', async () => {
    expect((await service.create(alice, body({ exchange: 'paper', apiKey: 'demo', secret: 'demo' }))).keyHint).toBe('');
    expect((await service.create(alice, body({ exchange: 'bybit' }))).exchange).toBe('bybit');
    const error = await failure(service.create(alice, body({ exchange: 'mtgox' })));
    expect(error.code).toBe('VALIDATION_FAILED');
    expect(error.details).toEqual([{ path: 'exchange', message: expect.stringContaining('ccxt') }]);
    expect(JSON.stringify({ message: error.message, details: error.details })).not.toContain(SECRET);
  });

  it('refuses to delete a credential an active deployment uses (409), and deletes it once none does', async () => {
    for (const status of ['starting', 'running', 'stopping'] as const) {
      const fresh = createMemoryStore();
      const svc = createCredentialService({ store: fresh, clock, secretBox: createAesGcmSecretBox({ masterKey: generateMasterKey() }) });
      const created = await svc.create(alice, body());
      await fresh.deployments.insert(deployment(alice, created.id, status));
      const error = await failure(svc.delete(alice, created.id));
      expect(error.code).toBe('CONFLICT');
      expect(error.status).toBe(409);
      expect(error.details).toEqual({ activeDeployments: 1 });
      expect(await svc.get(alice, created.id)).toEqual(created);
    }
    // Stopped and failed deployments do not hold a credential; nor does another user's deployment.
    const created = await service.create(alice, body());
    await store.deployments.insert(deployment(alice, created.id, 'stopped'));
    await store.deployments.insert(deployment(alice, created.id, 'failed'));
    await store.deployments.insert(deployment(bob, created.id, 'running'));
    await service.delete(alice, created.id);
    expect((await failure(service.get(alice, created.id))).code).toBe('NOT_FOUND');
    expect((await failure(service.delete(alice, created.id))).code).toBe('NOT_FOUND');
  });
});

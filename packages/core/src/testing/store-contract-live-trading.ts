import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { at, byNewestFirst, readAllPages, tieIds, uid } from './contract-fixtures.js';
import type { CredentialRecord, OrderRecord, OrderRecordStatus, Store } from '../ports/store.js';

/*
 * The Store contract of the live-trading repositories (credentials, orders), run by
 * `describeStoreContract` inside its own describe block with the same shared store and users.
 */

/** What the enclosing suite gives each test: the shared store, the test's owner and another user. */
export type LiveTradingContext = () => { store: Store; userId: string; otherUserId: string };

/** Every byte value, zeros and 0xff included, as a sealed secret's bytes may hold. */
const allBytes = () => Uint8Array.from({ length: 300 }, (_, i) => (i * 7 + 3) % 256);

function credential(userId: string, overrides: Partial<CredentialRecord> = {}): CredentialRecord {
  return {
    id: uid('cred'),
    userId,
    exchange: 'binanceusdm',
    label: 'Main account',
    testnet: false,
    keyHint: 'x9Zq',
    secrets: randomBytes(120),
    createdAt: at(0),
    ...overrides,
  };
}

function order(userId: string, deploymentId: string, overrides: Partial<OrderRecord> = {}): OrderRecord {
  return {
    id: uid('ord'),
    userId,
    deploymentId,
    clientOrderId: `sbx${randomBytes(12).toString('hex')}`,
    exchangeOrderId: null,
    symbol: 'BTC/USDT:USDT',
    side: 'buy',
    type: 'limit',
    quantity: 0.015,
    price: 42_000.5,
    stopPrice: null,
    reduceOnly: false,
    status: 'pending',
    filledQuantity: 0,
    averagePrice: null,
    fee: 0,
    createdAt: at(0),
    updatedAt: at(0),
    ...overrides,
  };
}

const hex = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
/** A credential with its secrets as hex, to compare exact bytes whatever Uint8Array subclass holds them. */
const comparable = (c: CredentialRecord | null) => (c === null ? null : { ...c, secrets: hex(c.secrets) });

/** The `credentials` and `orders` blocks of the Store contract suite. */
export function describeLiveTradingContract(context: LiveTradingContext): void {
  describe('credentials', () => {
    it('finds an inserted credential with its sealed bytes exactly as stored', async () => {
      const { store, userId } = context();
      const record = credential(userId, { secrets: allBytes(), testnet: true, label: 'Testnet ✓ "quoted" \'single\'' });
      await store.credentials.insert(record);
      const found = await store.credentials.findById(userId, record.id);
      expect(found?.secrets).toBeInstanceOf(Uint8Array);
      expect(comparable(found)).toEqual(comparable(record));
      const plain = credential(userId, { testnet: false });
      await store.credentials.insert(plain);
      expect(comparable(await store.credentials.findById(userId, plain.id))).toEqual(comparable(plain));
    });

    it('keeps the bytes of a view into a larger buffer, and is not changed by mutating them afterwards', async () => {
      const { store, userId } = context();
      const buffer = randomBytes(64);
      const view = new Uint8Array(buffer.buffer, buffer.byteOffset + 8, 16);
      const expected = hex(view);
      const record = credential(userId, { secrets: view });
      await store.credentials.insert(record);
      view.fill(0);
      expect(hex((await store.credentials.findById(userId, record.id))!.secrets)).toBe(expected);
    });

    it("returns null for a missing credential and for another user's", async () => {
      const { store, userId, otherUserId } = context();
      const record = credential(otherUserId);
      await store.credentials.insert(record);
      expect(await store.credentials.findById(userId, uid('cred'))).toBeNull();
      expect(await store.credentials.findById(userId, record.id)).toBeNull();
      expect(comparable(await store.credentials.findById(otherUserId, record.id))).toEqual(comparable(record));
    });

    it('throws when the id exists, and keeps the first', async () => {
      const { store, userId, otherUserId } = context();
      const record = credential(userId);
      await store.credentials.insert(record);
      await expect(store.credentials.insert({ ...record, label: 'Second' })).rejects.toThrow();
      await expect(store.credentials.insert({ ...record, userId: otherUserId })).rejects.toThrow();
      expect(comparable(await store.credentials.findById(userId, record.id))).toEqual(comparable(record));
    });

    it("lists only the user's credentials, newest first, ties by id descending, page by page", async () => {
      const { store, userId, otherUserId } = context();
      const tied = tieIds('cred').map((id) => credential(userId, { id, createdAt: at(3) }));
      const others = [5, 1, 4].map((s) => credential(userId, { createdAt: at(s) }));
      for (const r of [...tied, ...others]) await store.credentials.insert(r);
      await store.credentials.insert(credential(otherUserId, { createdAt: at(9) }));
      const expected = [...tied, ...others].sort(byNewestFirst).map(comparable);
      expect((await store.credentials.list(userId, { limit: 50 })).map(comparable)).toEqual(expected);
      for (const limit of [1, 4]) {
        const pages = await readAllPages((p) => store.credentials.list(userId, p), limit);
        expect(pages.flat().map(comparable)).toEqual(expected);
      }
      expect(await store.credentials.list(uid('usr'), { limit: 50 })).toEqual([]);
    });

    it("deletes the user's credential, and never another user's", async () => {
      const { store, userId, otherUserId } = context();
      const mine = credential(userId);
      const theirs = credential(otherUserId);
      await store.credentials.insert(mine);
      await store.credentials.insert(theirs);
      expect(await store.credentials.delete(userId, theirs.id)).toBe(false);
      expect(await store.credentials.findById(otherUserId, theirs.id)).not.toBeNull();
      expect(await store.credentials.delete(userId, mine.id)).toBe(true);
      expect(await store.credentials.findById(userId, mine.id)).toBeNull();
      expect(await store.credentials.delete(userId, mine.id)).toBe(false);
      expect(await store.credentials.delete(userId, uid('cred'))).toBe(false);
    });

    it('reads with forUpdate inside a transaction, and rolls back with it', async () => {
      const { store, userId } = context();
      const kept = credential(userId);
      await store.credentials.insert(kept);
      const added = credential(userId, { createdAt: at(1) });
      await expect(
        store.transaction(async (tx) => {
          expect(comparable(await tx.credentials.findById(userId, kept.id, { forUpdate: true }))).toEqual(comparable(kept));
          expect(await tx.credentials.delete(userId, kept.id)).toBe(true);
          await tx.credentials.insert(added);
          expect(await tx.credentials.findById(userId, added.id)).not.toBeNull();
          throw new Error('roll back');
        }),
      ).rejects.toThrow('roll back');
      expect(comparable(await store.credentials.findById(userId, kept.id))).toEqual(comparable(kept));
      expect(await store.credentials.findById(userId, added.id)).toBeNull();
    });
  });

  describe('paper accounts', () => {
    it('saves with compare-and-set versions: the first save from 0, then from the version loaded; a stale version is refused', async () => {
      const { store } = context();
      const credentialId = uid('cred');
      expect(await store.paperAccounts.load(credentialId, 'LINEAR')).toBeNull();
      expect(await store.paperAccounts.save(credentialId, 'LINEAR', '{"v":1}', 0, at(1))).toBe(true);
      expect(await store.paperAccounts.save(credentialId, 'LINEAR', '{"other":1}', 0, at(1))).toBe(false);
      expect(await store.paperAccounts.load(credentialId, 'LINEAR')).toEqual({ state: '{"v":1}', version: 1 });
      expect(await store.paperAccounts.save(credentialId, 'LINEAR', '{"v":2}', 1, at(2))).toBe(true);
      expect(await store.paperAccounts.save(credentialId, 'LINEAR', '{"stale":1}', 1, at(3))).toBe(false);
      expect(await store.paperAccounts.load(credentialId, 'LINEAR')).toEqual({ state: '{"v":2}', version: 2 });
      // Market types are separate accounts.
      expect(await store.paperAccounts.load(credentialId, 'SPOT')).toBeNull();
    });

    it('lets exactly one of concurrent saves from the same version through', async () => {
      const { store } = context();
      const credentialId = uid('cred');
      await store.paperAccounts.save(credentialId, 'LINEAR', 'base', 0, at(1));
      const results = await Promise.all(Array.from({ length: 8 }, (_, i) => store.paperAccounts.save(credentialId, 'LINEAR', `writer ${i}`, 1, at(2))));
      expect(results.filter(Boolean)).toHaveLength(1);
      const saved = await store.paperAccounts.load(credentialId, 'LINEAR');
      expect(saved?.version).toBe(2);
      expect(saved?.state).toBe(`writer ${results.indexOf(true)}`);
    });

    it("deletes a credential's accounts and no other's", async () => {
      const { store } = context();
      const [a, b] = [uid('cred'), uid('cred')];
      for (const id of [a, b]) {
        await store.paperAccounts.save(id, 'LINEAR', 'x', 0, at(1));
        await store.paperAccounts.save(id, 'SPOT', 'y', 0, at(1));
      }
      await store.paperAccounts.deleteForCredential(a);
      expect(await store.paperAccounts.load(a, 'LINEAR')).toBeNull();
      expect(await store.paperAccounts.load(a, 'SPOT')).toBeNull();
      expect(await store.paperAccounts.load(b, 'SPOT')).toEqual({ state: 'y', version: 1 });
    });
  });

  describe('orders', () => {
    it('finds an inserted order by id (scoped) and by client order id (not scoped), as stored', async () => {
      const { store, userId, otherUserId } = context();
      const deploymentId = uid('dep');
      const record = order(userId, deploymentId, {
        type: 'stop',
        side: 'sell',
        quantity: 0.1 + 0.2,
        price: null,
        stopPrice: 39_999.123456789,
        reduceOnly: true,
        status: 'partially_filled',
        exchangeOrderId: '8389765490123456789',
        filledQuantity: 1e-8,
        averagePrice: 40_001.75,
        fee: 0.000123456789,
        updatedAt: at(7),
      });
      await store.orders.insert(record);
      expect(await store.orders.findById(userId, record.id)).toEqual(record);
      expect(await store.orders.findById(otherUserId, record.id)).toBeNull();
      expect(await store.orders.findById(userId, uid('ord'))).toBeNull();
      expect(await store.orders.findByClientOrderId(record.clientOrderId)).toEqual(record);
      expect(await store.orders.findByClientOrderId(`sbx${randomBytes(12).toString('hex')}`)).toBeNull();
      const market = order(userId, deploymentId, { type: 'market', price: null });
      await store.orders.insert(market);
      expect(await store.orders.findByClientOrderId(market.clientOrderId)).toEqual(market);
    });

    it('throws on a duplicate id or client order id, and keeps the first', async () => {
      const { store, userId, otherUserId } = context();
      const record = order(userId, uid('dep'));
      await store.orders.insert(record);
      await expect(store.orders.insert({ ...record, clientOrderId: `sbx${randomBytes(12).toString('hex')}` })).rejects.toThrow();
      await expect(store.orders.insert({ ...order(otherUserId, uid('dep')), clientOrderId: record.clientOrderId })).rejects.toThrow();
      expect(await store.orders.findByClientOrderId(record.clientOrderId)).toEqual(record);
      expect(await store.orders.findById(userId, record.id)).toEqual(record);
    });

    it("lists a deployment's orders newest first, only the user's and only that deployment's, page by page", async () => {
      const { store, userId, otherUserId } = context();
      const deploymentId = uid('dep');
      const tied = tieIds('ord').map((id) => order(userId, deploymentId, { id, createdAt: at(3) }));
      const others = [5, 1, 4, 2].map((s) => order(userId, deploymentId, { createdAt: at(s) }));
      for (const r of [...tied, ...others]) await store.orders.insert(r);
      await store.orders.insert(order(userId, uid('dep'), { createdAt: at(9) }));
      await store.orders.insert(order(otherUserId, deploymentId, { createdAt: at(9) }));
      const expected = [...tied, ...others].sort(byNewestFirst);
      expect(await store.orders.listByDeployment(userId, deploymentId, { limit: 50 })).toEqual(expected);
      for (const limit of [1, 3, 5]) {
        const pages = await readAllPages((p) => store.orders.listByDeployment(userId, deploymentId, p), limit);
        expect(pages.flat()).toEqual(expected);
      }
      expect(await store.orders.listByDeployment(otherUserId, deploymentId, { limit: 50 })).toHaveLength(1);
      expect(await store.orders.listByDeployment(userId, uid('dep'), { limit: 50 })).toEqual([]);
    });

    it('lists the open orders of a deployment (pending, open, partially filled), oldest first', async () => {
      const { store, userId } = context();
      const deploymentId = uid('dep');
      const statuses: OrderRecordStatus[] = ['filled', 'open', 'cancelled', 'pending', 'rejected', 'partially_filled'];
      const rows = statuses.map((status, i) => order(userId, deploymentId, { status, createdAt: at(10 - i) }));
      for (const r of rows) await store.orders.insert(r);
      await store.orders.insert(order(userId, uid('dep'), { status: 'open' }));
      const open = await store.orders.listOpen(deploymentId);
      expect(open.map((o) => o.status)).toEqual(['partially_filled', 'pending', 'open']);
      expect(open).toEqual([rows[5], rows[3], rows[1]]);
      expect(await store.orders.listOpen(uid('dep'))).toEqual([]);
    });

    it('updates the given fields, leaves undefined ones, and returns the order; null for a missing one', async () => {
      const { store, userId } = context();
      const record = order(userId, uid('dep'));
      await store.orders.insert(record);
      const updated = await store.orders.update(record.id, {
        exchangeOrderId: 'ex-1',
        status: 'partially_filled',
        filledQuantity: 0.005,
        averagePrice: 41_999.9,
        fee: 0.0123,
        updatedAt: at(5),
      });
      const expected = {
        ...record,
        exchangeOrderId: 'ex-1',
        status: 'partially_filled',
        filledQuantity: 0.005,
        averagePrice: 41_999.9,
        fee: 0.0123,
        updatedAt: at(5),
      };
      expect(updated).toEqual(expected);
      expect(await store.orders.update(record.id, { status: 'filled', averagePrice: undefined })).toEqual({ ...expected, status: 'filled' });
      expect(await store.orders.findById(userId, record.id)).toEqual({ ...expected, status: 'filled' });
      expect(await store.orders.update(uid('ord'), { status: 'filled' })).toBeNull();
    });

    it('applies an update with expectedStatus only from those statuses (compare-and-set)', async () => {
      const { store, userId } = context();
      const record = order(userId, uid('dep'), { status: 'open' });
      await store.orders.insert(record);
      expect(await store.orders.update(record.id, { status: 'filled' }, { expectedStatus: ['pending'] })).toBeNull();
      expect((await store.orders.findById(userId, record.id))?.status).toBe('open');
      const done = await store.orders.update(record.id, { status: 'cancelled', updatedAt: at(2) }, { expectedStatus: ['pending', 'open'] });
      expect(done).toEqual({ ...record, status: 'cancelled', updatedAt: at(2) });
      expect(await store.orders.update(uid('ord'), { status: 'open' }, { expectedStatus: ['pending'] })).toBeNull();
    });

    it('lets exactly one of several concurrent compare-and-sets from the same status win', async () => {
      const { store, userId } = context();
      const record = order(userId, uid('dep'));
      await store.orders.insert(record);
      const results = await Promise.all(
        (['open', 'rejected', 'filled', 'cancelled'] as const).map((status) => store.orders.update(record.id, { status }, { expectedStatus: ['pending'] })),
      );
      const winners = results.filter((r) => r !== null);
      expect(winners).toHaveLength(1);
      expect((await store.orders.findById(userId, record.id))?.status).toBe(winners[0]!.status);
    });

    it('rolls back an insert and an update made in a failed transaction', async () => {
      const { store, userId } = context();
      const kept = order(userId, uid('dep'));
      await store.orders.insert(kept);
      const added = order(userId, kept.deploymentId);
      await expect(
        store.transaction(async (tx) => {
          await tx.orders.insert(added);
          expect(await tx.orders.update(kept.id, { status: 'open' }, { expectedStatus: ['pending'] })).not.toBeNull();
          expect((await tx.orders.listOpen(kept.deploymentId)).map((o) => o.id).sort()).toEqual([kept.id, added.id].sort());
          throw new Error('roll back');
        }),
      ).rejects.toThrow('roll back');
      expect(await store.orders.findByClientOrderId(added.clientOrderId)).toBeNull();
      expect(await store.orders.findById(userId, kept.id)).toEqual(kept);
    });
  });
}

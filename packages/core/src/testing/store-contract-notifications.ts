import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { at, byNewestFirst, expectPagedOnce, tieIds, uid } from './contract-fixtures.js';
import type { NotificationChannelRecord, NotificationDeliveryRecord, NotificationEventRecord, Store } from '../ports/store.js';

/*
 * The Store contract of the notification repositories (channels, the event outbox, deliveries),
 * run by `describeStoreContract` inside its own describe block with the same shared store and users.
 */

/** What the enclosing suite gives each test: the shared store, the test's owner and another user. */
export type NotificationsContext = () => { store: Store; userId: string; otherUserId: string };

/** Every byte value, zeros and 0xff included, as sealed bytes may hold. */
const allBytes = () => Uint8Array.from({ length: 300 }, (_, i) => (i * 7 + 3) % 256);

const hex = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
/** A channel with its secrets as hex, to compare exact bytes whatever Uint8Array subclass holds them. */
const withHex = (c: NotificationChannelRecord) => ({ ...c, secrets: hex(c.secrets) });
const comparable = (c: NotificationChannelRecord | null) => (c === null ? null : withHex(c));

function channel(userId: string, overrides: Partial<NotificationChannelRecord> = {}): NotificationChannelRecord {
  return {
    id: uid('nch'),
    userId,
    kind: 'webhook',
    label: 'Ops hook',
    events: ['*'],
    minSeverity: 'info',
    status: 'active',
    pausedReason: null,
    target: 'https://hooks.example.com',
    secrets: randomBytes(96),
    createdAt: at(0),
    updatedAt: at(0),
    ...overrides,
  };
}

function event(userId: string, overrides: Partial<NotificationEventRecord> = {}): NotificationEventRecord {
  return {
    id: uid('evt'),
    userId,
    type: 'backtest.completed',
    severity: 'info',
    time: at(0),
    subjectKind: 'backtest',
    subjectId: uid('bt'),
    summary: 'Backtest completed: +4.20 %',
    data: { backtestId: 'bt_1', strategyId: 'str_1', metrics: { totalReturn: 0.042, maxDrawdown: null, sharpe: 1.5, tradeCount: 12 } },
    onlyChannelId: null,
    exceptChannelId: null,
    dispatchedAt: null,
    createdAt: at(0),
    ...overrides,
  };
}

function delivery(c: Pick<NotificationChannelRecord, 'id' | 'userId'>, overrides: Partial<NotificationDeliveryRecord> = {}): NotificationDeliveryRecord {
  const eventId = overrides.eventId ?? uid('evt');
  return {
    id: uid('ndl'),
    userId: c.userId,
    channelId: c.id,
    eventId,
    eventType: 'deployment.order.filled',
    floodKey: 'deployment.order.filled|dep_1',
    digestKey: null,
    eventCount: 1,
    lastEventId: eventId,
    status: 'pending',
    attempts: 0,
    nextAttemptAt: at(0),
    leaseUntil: null,
    lastStatusCode: null,
    lastError: null,
    createdAt: at(0),
    updatedAt: at(0),
    deliveredAt: null,
    ...overrides,
  };
}

const ids = (rows: Array<{ id: string }>) => rows.map((r) => r.id);

/** The notification blocks of the Store contract suite. */
export function describeNotificationsContract(context: NotificationsContext): void {
  /*
   * listUndispatched and claimDue work across users, on a store every test shares. Each test of
   * them works in a time of its own, earlier than any before it (and than every other fixture),
   * so rows other tests left behind are never due in it and sort after its own.
   */
  let year = 1900;
  const nextEra = () => {
    year -= 2;
    const base = Date.UTC(year, 0, 1);
    return (seconds: number) => new Date(base + seconds * 1000).toISOString();
  };

  async function insertChannel(owner: string, overrides: Partial<NotificationChannelRecord> = {}) {
    const { store } = context();
    const record = channel(owner, overrides);
    await store.notificationChannels.insert(record);
    return record;
  }

  describe('notificationChannels', () => {
    it('finds an inserted channel with its sealed bytes exactly as stored, by owner or by id alone', async () => {
      const { store, userId, otherUserId } = context();
      const record = channel(userId, {
        kind: 'telegram',
        label: 'Alerts ✓ "quoted" \'single\'',
        events: ['deployment.failed', 'deployment.halted'],
        minSeverity: 'warning',
        status: 'paused',
        pausedReason: 'Paused by its owner',
        target: 'chat -100123',
        secrets: allBytes(),
        createdAt: '2026-03-04T05:06:07.089Z',
        updatedAt: '2026-03-05T05:06:07.001Z',
      });
      await store.notificationChannels.insert(record);
      const found = await store.notificationChannels.findById(userId, record.id);
      expect(found?.secrets).toBeInstanceOf(Uint8Array);
      expect(comparable(found)).toEqual(comparable(record));
      expect(comparable(await store.notificationChannels.get(record.id))).toEqual(comparable(record));
      expect(await store.notificationChannels.findById(otherUserId, record.id)).toBeNull();
      expect(await store.notificationChannels.findById(userId, uid('nch'))).toBeNull();
      expect(await store.notificationChannels.get(uid('nch'))).toBeNull();
    });

    it('throws on a duplicate id and keeps the first', async () => {
      const { store, userId } = context();
      const record = await insertChannel(userId);
      await expect(store.notificationChannels.insert({ ...record, label: 'Second' })).rejects.toThrow();
      expect((await store.notificationChannels.get(record.id))?.label).toBe(record.label);
    });

    it('lists and counts only the owner’s channels, newest first by (createdAt, id), in pages', async () => {
      const { store, userId, otherUserId } = context();
      const tied = tieIds('nch');
      const records = [
        ...tied.map((id) => channel(userId, { id, createdAt: at(5) })),
        channel(userId, { createdAt: at(9) }),
        channel(userId, { createdAt: at(1) }),
      ];
      for (const r of records) await store.notificationChannels.insert(r);
      await insertChannel(otherUserId, { createdAt: at(7) });
      const expected = [...records].sort(byNewestFirst);
      await expectPagedOnce((page) => store.notificationChannels.list(userId, page).then((rows) => rows.map(withHex)), expected.map(withHex));
      expect((await store.notificationChannels.listAll(userId)).map(withHex)).toEqual(expected.map(withHex));
      expect(await store.notificationChannels.count(userId)).toBe(records.length);
      expect(await store.notificationChannels.count(uid('usr'))).toBe(0);
      expect(await store.notificationChannels.listAll(uid('usr'))).toEqual([]);
      expect(await store.notificationChannels.list(uid('usr'), { limit: 10 })).toEqual([]);
    });

    it('updates the given fields of the owner’s channel only, and returns the updated record', async () => {
      const { store, userId, otherUserId } = context();
      const record = await insertChannel(userId);
      expect(await store.notificationChannels.update(otherUserId, record.id, { label: 'Stolen' })).toBeNull();
      expect(await store.notificationChannels.update(userId, uid('nch'), { label: 'Nobody' })).toBeNull();
      const secrets = allBytes().reverse();
      const updated = await store.notificationChannels.update(userId, record.id, {
        status: 'paused',
        pausedReason: 'Delivery failed 8 times',
        events: ['backtest.failed'],
        secrets,
        updatedAt: at(60),
      });
      const expected = {
        ...record,
        status: 'paused' as const,
        pausedReason: 'Delivery failed 8 times',
        events: ['backtest.failed'],
        secrets,
        updatedAt: at(60),
      };
      expect(comparable(updated)).toEqual(comparable(expected));
      expect(comparable(await store.notificationChannels.get(record.id))).toEqual(comparable(expected));
      const resumed = await store.notificationChannels.update(userId, record.id, { status: 'active', pausedReason: null });
      expect(resumed).toMatchObject({ status: 'active', pausedReason: null, label: record.label });
    });

    it('deletes the owner’s channel with every delivery of it, and nothing of another channel', async () => {
      const { store, userId, otherUserId } = context();
      const doomed = await insertChannel(userId);
      const kept = await insertChannel(userId);
      const plain = delivery(doomed);
      const digest = delivery(doomed, { digestKey: `${doomed.id}|k|${at(0)}` });
      const other = delivery(kept);
      for (const d of [plain, digest, other]) expect(await store.notificationDeliveries.insert(d)).toBe(true);

      expect(await store.notificationChannels.delete(otherUserId, doomed.id)).toBe(false);
      expect(await store.notificationChannels.get(doomed.id)).not.toBeNull();
      expect(await store.notificationChannels.delete(userId, doomed.id)).toBe(true);
      expect(await store.notificationChannels.get(doomed.id)).toBeNull();
      expect(await store.notificationDeliveries.get(plain.id)).toBeNull();
      expect(await store.notificationDeliveries.get(digest.id)).toBeNull();
      expect(await store.notificationDeliveries.findByDigestKey(digest.digestKey ?? '')).toBeNull();
      expect(await store.notificationDeliveries.listByChannel(userId, doomed.id, { limit: 10 })).toEqual([]);
      expect(await store.notificationDeliveries.get(other.id)).toEqual(other);
      expect(await store.notificationChannels.delete(userId, doomed.id)).toBe(false);
    });
  });

  describe('notificationEvents', () => {
    it('inserts an event once: the same id again is false and changes nothing', async () => {
      const { store, userId, otherUserId } = context();
      const record = event(userId, {
        type: 'deployment.halted',
        severity: 'critical',
        subjectKind: 'deployment',
        summary: 'Halted ✓ "quoted" \'single\' 🚨',
        data: { deploymentId: 'dep_1', halt: { reasons: ['drawdown'], figures: { equity: 9_000.25, nested: [1, null, { a: true }] } }, note: 'ü' },
        onlyChannelId: uid('nch'),
        exceptChannelId: uid('nch'),
        time: '2026-02-03T04:05:06.007Z',
        createdAt: '2026-02-03T04:05:06.123Z',
      });
      expect(await store.notificationEvents.insert(record)).toBe(true);
      expect(await store.notificationEvents.insert({ ...record, summary: 'Second write', data: {} })).toBe(false);
      expect(await store.notificationEvents.findById(userId, record.id)).toEqual(record);
      expect(await store.notificationEvents.findById(otherUserId, record.id)).toBeNull();
      expect(await store.notificationEvents.findById(userId, uid('evt'))).toBeNull();
    });

    it('lists only the owner’s events, newest first by (createdAt, id), in pages', async () => {
      const { store, userId, otherUserId } = context();
      const records = [
        ...tieIds('evt').map((id) => event(userId, { id, createdAt: at(3) })),
        event(userId, { createdAt: at(8) }),
        event(userId, { createdAt: at(-2) }),
      ];
      for (const r of records) await store.notificationEvents.insert(r);
      await store.notificationEvents.insert(event(otherUserId, { createdAt: at(4) }));
      await expectPagedOnce((page) => store.notificationEvents.list(userId, page), [...records].sort(byNewestFirst));
      expect(await store.notificationEvents.list(uid('usr'), { limit: 10 })).toEqual([]);
    });

    it('lists undispatched events of every user oldest first by (createdAt, id), at most `limit`', async () => {
      const { store, userId, otherUserId } = context();
      const t = nextEra();
      const tied = tieIds('evt');
      const records = [
        event(userId, { createdAt: t(5) }),
        event(otherUserId, { createdAt: t(1) }),
        ...tied.map((id) => event(userId, { id, createdAt: t(3) })),
        event(otherUserId, { createdAt: t(9) }),
      ];
      const dispatched = event(userId, { createdAt: t(0), dispatchedAt: t(0) });
      for (const r of [...records, dispatched]) await store.notificationEvents.insert(r);
      const oldestFirst = [...records].sort(byNewestFirst).reverse();
      expect(await store.notificationEvents.listUndispatched(oldestFirst.length)).toEqual(oldestFirst);
      expect(await store.notificationEvents.listUndispatched(3)).toEqual(oldestFirst.slice(0, 3));
      expect(await store.notificationEvents.listUndispatched(0)).toEqual([]);

      expect(await store.notificationEvents.markDispatched(oldestFirst[0]?.id ?? '', t(20))).toBe(true);
      expect(ids(await store.notificationEvents.listUndispatched(2))).toEqual(ids(oldestFirst.slice(1, 3)));
      // Leave nothing undispatched in this era for later tests.
      for (const r of records) await store.notificationEvents.markDispatched(r.id, t(30));
    });

    it('marks an event dispatched once (a compare-and-set), at the time given', async () => {
      const { store, userId } = context();
      const record = event(userId);
      await store.notificationEvents.insert(record);
      expect(await store.notificationEvents.markDispatched(record.id, '2026-05-06T07:08:09.010Z')).toBe(true);
      expect(await store.notificationEvents.markDispatched(record.id, '2026-05-06T07:09:00.000Z')).toBe(false);
      expect((await store.notificationEvents.findById(userId, record.id))?.dispatchedAt).toBe('2026-05-06T07:08:09.010Z');
      expect(await store.notificationEvents.markDispatched(uid('evt'), at(1))).toBe(false);
    });

    it('of concurrent dispatchers, in transactions or not, exactly one marks the event', async () => {
      const { store, userId } = context();
      for (const inTransactions of [false, true]) {
        const record = event(userId);
        await store.notificationEvents.insert(record);
        const results = await Promise.all(
          Array.from({ length: 5 }, (_, i) =>
            inTransactions
              ? store.transaction((tx) => tx.notificationEvents.markDispatched(record.id, at(i))).catch(() => false)
              : store.notificationEvents.markDispatched(record.id, at(i)),
          ),
        );
        expect(results.filter(Boolean)).toHaveLength(1);
        expect((await store.notificationEvents.findById(userId, record.id))?.dispatchedAt).toBe(at(results.indexOf(true)));
      }
    });

    it('marks nothing and writes no delivery when the transaction fails', async () => {
      const { store, userId } = context();
      const c = await insertChannel(userId);
      const record = event(userId);
      await store.notificationEvents.insert(record);
      const d = delivery(c, { eventId: record.id, lastEventId: record.id });
      await expect(
        store.transaction(async (tx) => {
          expect(await tx.notificationEvents.markDispatched(record.id, at(1))).toBe(true);
          expect(await tx.notificationDeliveries.insert(d)).toBe(true);
          throw new Error('fan-out failed');
        }),
      ).rejects.toThrow('fan-out failed');
      expect((await store.notificationEvents.findById(userId, record.id))?.dispatchedAt).toBeNull();
      expect(await store.notificationDeliveries.get(d.id)).toBeNull();
      // And both when it commits.
      await store.transaction(async (tx) => {
        expect(await tx.notificationEvents.markDispatched(record.id, at(2))).toBe(true);
        expect(await tx.notificationDeliveries.insert(d)).toBe(true);
      });
      expect((await store.notificationEvents.findById(userId, record.id))?.dispatchedAt).toBe(at(2));
      expect(await store.notificationDeliveries.get(d.id)).toEqual(d);
    });
  });

  describe('notificationDeliveries', () => {
    it('finds an inserted delivery as stored, by owner or by id alone', async () => {
      const { store, userId, otherUserId } = context();
      const c = await insertChannel(userId);
      const record = delivery(c, {
        status: 'failed',
        attempts: 8,
        nextAttemptAt: null,
        leaseUntil: '2026-01-02T03:04:59.999Z',
        lastStatusCode: 503,
        lastError: 'HTTP 503: Service Unavailable ✓',
        createdAt: '2026-01-02T03:04:05.006Z',
        updatedAt: '2026-01-02T03:14:05.007Z',
      });
      expect(await store.notificationDeliveries.insert(record)).toBe(true);
      expect(await store.notificationDeliveries.findById(userId, record.id)).toEqual(record);
      expect(await store.notificationDeliveries.get(record.id)).toEqual(record);
      expect(await store.notificationDeliveries.findById(otherUserId, record.id)).toBeNull();
      expect(await store.notificationDeliveries.findById(userId, uid('ndl'))).toBeNull();
      expect(await store.notificationDeliveries.get(uid('ndl'))).toBeNull();
    });

    it('writes one delivery per channel and event, and one digest per key (fan-out is idempotent)', async () => {
      const { store, userId } = context();
      const c = await insertChannel(userId);
      const other = await insertChannel(userId);
      const first = delivery(c);
      expect(await store.notificationDeliveries.insert(first)).toBe(true);
      const again = delivery(c, { eventId: first.eventId, lastEventId: first.eventId });
      expect(await store.notificationDeliveries.insert(again)).toBe(false);
      expect(await store.notificationDeliveries.get(again.id)).toBeNull();
      expect(await store.notificationDeliveries.insert(delivery(other, { eventId: first.eventId, lastEventId: first.eventId }))).toBe(true);

      const digestKey = `${c.id}|${first.floodKey}|2026-01-02T03:04:00.000Z`;
      // A digest is not the delivery of its first event: both may exist.
      const digest = delivery(c, { eventId: first.eventId, lastEventId: first.eventId, digestKey });
      expect(await store.notificationDeliveries.insert(digest)).toBe(true);
      const secondDigest = delivery(c, { digestKey });
      expect(await store.notificationDeliveries.insert(secondDigest)).toBe(false);
      expect(await store.notificationDeliveries.get(secondDigest.id)).toBeNull();
      expect(await store.notificationDeliveries.findByDigestKey(digestKey)).toEqual(digest);
      expect(await store.notificationDeliveries.findByDigestKey(`${digestKey}x`)).toBeNull();
      // Another minute's digest of the same first event is another digest.
      expect(await store.notificationDeliveries.insert(delivery(c, { eventId: first.eventId, digestKey: `${digestKey}+1` }))).toBe(true);
      // In a transaction too.
      expect(await store.transaction((tx) => tx.notificationDeliveries.insert(delivery(c, { eventId: first.eventId })))).toBe(false);
    });

    it('appends events to a pending digest, and refuses once it is not pending', async () => {
      const { store, userId } = context();
      const c = await insertChannel(userId);
      const digest = delivery(c, { digestKey: `${c.id}|k|${at(0)}` });
      await store.notificationDeliveries.insert(digest);
      const e2 = uid('evt');
      const e3 = uid('evt');
      expect(await store.notificationDeliveries.appendToDigest(digest.id, e2, at(10))).toBe(true);
      expect(await store.notificationDeliveries.appendToDigest(digest.id, e3, at(11))).toBe(true);
      expect(await store.notificationDeliveries.get(digest.id)).toEqual({ ...digest, eventCount: 3, lastEventId: e3, updatedAt: at(11) });
      const results = await Promise.all(Array.from({ length: 4 }, (_, i) => store.notificationDeliveries.appendToDigest(digest.id, uid('evt'), at(20 + i))));
      expect(results).toEqual([true, true, true, true]);
      expect((await store.notificationDeliveries.get(digest.id))?.eventCount).toBe(7);

      await store.notificationDeliveries.recordAttempt(digest.id, 0, {
        status: 'delivered',
        attempts: 1,
        nextAttemptAt: null,
        deliveredAt: at(61),
        updatedAt: at(61),
      });
      expect(await store.notificationDeliveries.appendToDigest(digest.id, uid('evt'), at(62))).toBe(false);
      expect(await store.notificationDeliveries.get(digest.id)).toMatchObject({ eventCount: 7, status: 'delivered', updatedAt: at(61) });
      expect(await store.notificationDeliveries.appendToDigest(uid('ndl'), uid('evt'), at(62))).toBe(false);
    });

    it('counts a channel’s deliveries of one flood key created at or after a time, digests included', async () => {
      const { store, userId } = context();
      const c = await insertChannel(userId);
      const other = await insertChannel(userId);
      const key = 'deployment.order.filled|dep_a';
      for (const s of [10, 20, 30]) await store.notificationDeliveries.insert(delivery(c, { floodKey: key, createdAt: at(s) }));
      await store.notificationDeliveries.insert(delivery(c, { floodKey: key, createdAt: at(40), digestKey: `${c.id}|${key}|${at(0)}`, status: 'delivered' }));
      await store.notificationDeliveries.insert(delivery(c, { floodKey: 'deployment.order.filled|dep_b', createdAt: at(35) }));
      await store.notificationDeliveries.insert(delivery(other, { floodKey: key, createdAt: at(35) }));
      expect(await store.notificationDeliveries.countRecent(c.id, key, at(0))).toBe(4);
      expect(await store.notificationDeliveries.countRecent(c.id, key, at(20))).toBe(3);
      expect(await store.notificationDeliveries.countRecent(c.id, key, at(41))).toBe(0);
      expect(await store.notificationDeliveries.countRecent(uid('nch'), key, at(0))).toBe(0);
    });

    it('claims only pending, due, unheld deliveries of active channels, oldest due first, and sets their lease', async () => {
      const { store, userId, otherUserId } = context();
      const t = nextEra();
      const active = await insertChannel(userId);
      const paused = await insertChannel(userId, { status: 'paused', pausedReason: 'by owner' });
      const others = await insertChannel(otherUserId);
      const now = t(100);
      const claimable = [
        delivery(active, { nextAttemptAt: t(50) }),
        delivery(others, { nextAttemptAt: t(10) }),
        delivery(active, { nextAttemptAt: now }),
        delivery(active, { nextAttemptAt: t(20), leaseUntil: t(99), attempts: 2 }),
      ];
      const notClaimable = [
        delivery(active, { nextAttemptAt: t(131) }),
        delivery(active, { nextAttemptAt: t(1), status: 'delivered', deliveredAt: t(2) }),
        delivery(active, { nextAttemptAt: t(1), status: 'failed' }),
        delivery(active, { nextAttemptAt: t(1), leaseUntil: t(160) }),
        delivery(active, { nextAttemptAt: t(1), leaseUntil: now }),
        delivery(paused, { nextAttemptAt: t(1) }),
      ];
      for (const d of [...claimable, ...notClaimable]) await store.notificationDeliveries.insert(d);

      const lease = t(130);
      const claimed = await store.notificationDeliveries.claimDue(now, lease, 100);
      const expected = [1, 3, 0, 2].map((i) => ({ ...(claimable[i] as NotificationDeliveryRecord), leaseUntil: lease }));
      expect([...claimed].sort((a, b) => ((a.nextAttemptAt ?? '') < (b.nextAttemptAt ?? '') ? -1 : 1))).toEqual(expected);
      for (const d of expected) expect(await store.notificationDeliveries.get(d.id)).toEqual(d);
      for (const d of notClaimable) expect(await store.notificationDeliveries.get(d.id)).toEqual(d);

      // Held: not claimed again until the lease has passed (a lease ending at `now` still holds).
      expect(await store.notificationDeliveries.claimDue(now, t(140), 100)).toEqual([]);
      expect(ids(await store.notificationDeliveries.claimDue(lease, t(9_999_999), 100))).toEqual([notClaimable[4]?.id]);
      const again = await store.notificationDeliveries.claimDue(t(131), t(9_999_999), 100);
      expect(ids(again).sort()).toEqual([...ids(expected), notClaimable[0]?.id ?? ''].sort());
      expect(again.every((d) => d.leaseUntil === t(9_999_999))).toBe(true);
      // The paused channel's delivery is claimed once the channel is active again.
      await store.notificationChannels.update(userId, paused.id, { status: 'active', pausedReason: null });
      expect(ids(await store.notificationDeliveries.claimDue(t(131), t(9_999_999), 100))).toEqual([notClaimable[5]?.id]);
      // Nothing of this era is claimable any more (the one leased to t(160) is, after it: claim it away).
      expect(ids(await store.notificationDeliveries.claimDue(t(161), t(9_999_999), 100))).toEqual([notClaimable[3]?.id]);
    });

    it('claims at most `limit`, the oldest due first', async () => {
      const { store, userId } = context();
      const t = nextEra();
      const c = await insertChannel(userId);
      const rows = [40, 10, 30, 20, 50].map((s) => delivery(c, { nextAttemptAt: t(s) }));
      for (const d of rows) await store.notificationDeliveries.insert(d);
      const first = await store.notificationDeliveries.claimDue(t(100), t(9_999_999), 2);
      expect(ids(first).sort()).toEqual([rows[1]?.id, rows[3]?.id].sort());
      const second = await store.notificationDeliveries.claimDue(t(100), t(9_999_999), 2);
      expect(ids(second).sort()).toEqual([rows[2]?.id, rows[0]?.id].sort());
      expect(await store.notificationDeliveries.claimDue(t(100), t(9_999_999), 0)).toEqual([]);
      expect(ids(await store.notificationDeliveries.claimDue(t(100), t(9_999_999), 2))).toEqual([rows[4]?.id]);
    });

    it('never gives the same delivery to concurrent claimers, in transactions or not', async () => {
      const { store, userId, otherUserId } = context();
      const t = nextEra();
      const channels = [await insertChannel(userId), await insertChannel(userId), await insertChannel(otherUserId)];
      // Open the connections of a pooled store first (claiming nothing), so that the claims below run at once.
      await Promise.all(Array.from({ length: 6 }, () => store.notificationDeliveries.claimDue(t(-10), t(-9), 1)));
      for (let round = 0; round < 4; round++) {
        const start = round * 1000;
        const rows = Array.from({ length: 30 }, (_, i) => delivery(channels[i % 3] as NotificationChannelRecord, { nextAttemptAt: t(start + (i % 7)) }));
        for (const d of rows) await store.notificationDeliveries.insert(d);
        const now = t(start + 100);
        const claim = (i: number) =>
          round % 2 === 1 && i === 0
            ? store.transaction((tx) => tx.notificationDeliveries.claimDue(now, t(9_999_999), 12))
            : store.notificationDeliveries.claimDue(now, t(9_999_999), 12);
        const claims = await Promise.all([0, 1, 2].map(claim));
        const claimed = claims.flatMap(ids);
        expect(new Set(claimed).size).toBe(claimed.length);
        expect(claimed.length).toBeGreaterThanOrEqual(12);
        const rest = await store.notificationDeliveries.claimDue(now, t(9_999_999), 100);
        expect([...claimed, ...ids(rest)].sort()).toEqual(ids(rows).sort());
      }
    });

    it('records an attempt only if the delivery is pending with the expected attempts (a compare-and-set)', async () => {
      const { store, userId } = context();
      const c = await insertChannel(userId);
      const record = delivery(c, { leaseUntil: at(30) });
      await store.notificationDeliveries.insert(record);
      const retry = { attempts: 1, nextAttemptAt: at(60), leaseUntil: null, lastStatusCode: 500, lastError: 'HTTP 500', updatedAt: at(1) };
      expect(await store.notificationDeliveries.recordAttempt(record.id, 0, retry)).toEqual({ ...record, ...retry });
      expect(await store.notificationDeliveries.recordAttempt(record.id, 0, { attempts: 1, lastError: 'late' })).toBeNull();

      const success = {
        status: 'delivered' as const,
        attempts: 2,
        nextAttemptAt: null,
        lastStatusCode: 204,
        lastError: null,
        updatedAt: at(61),
        deliveredAt: at(61),
      };
      const results = await Promise.all([
        store.notificationDeliveries.recordAttempt(record.id, 1, success),
        store.notificationDeliveries.recordAttempt(record.id, 1, { ...success, lastStatusCode: 200 }),
        store.transaction((tx) => tx.notificationDeliveries.recordAttempt(record.id, 1, { ...success, lastStatusCode: 202 })).catch(() => null),
      ]);
      const winners = results.filter((r) => r !== null);
      expect(winners).toHaveLength(1);
      expect(await store.notificationDeliveries.get(record.id)).toEqual(winners[0]);
      expect(winners[0]).toMatchObject({ status: 'delivered', attempts: 2, deliveredAt: at(61), lastError: null });
      // Not pending any more: no attempt is recorded, whatever the count.
      expect(await store.notificationDeliveries.recordAttempt(record.id, 2, { status: 'failed', attempts: 3 })).toBeNull();
      expect(await store.notificationDeliveries.recordAttempt(uid('ndl'), 0, { attempts: 1 })).toBeNull();
    });

    it('lists the owner’s channel’s deliveries newest first, in pages, optionally of one status', async () => {
      const { store, userId, otherUserId } = context();
      const c = await insertChannel(userId);
      const other = await insertChannel(userId);
      const rows = [
        ...tieIds('ndl').map((id, i) => delivery(c, { id, createdAt: at(5), status: i % 2 === 0 ? 'pending' : 'delivered' })),
        delivery(c, { createdAt: at(9), status: 'failed' }),
        delivery(c, { createdAt: at(1), status: 'delivered' }),
      ];
      for (const d of rows) await store.notificationDeliveries.insert(d);
      await store.notificationDeliveries.insert(delivery(other, { createdAt: at(6) }));
      const newest = [...rows].sort(byNewestFirst);
      await expectPagedOnce((page) => store.notificationDeliveries.listByChannel(userId, c.id, page), newest);
      await expectPagedOnce(
        (page) => store.notificationDeliveries.listByChannel(userId, c.id, page, { status: 'delivered' }),
        newest.filter((d) => d.status === 'delivered'),
        [1, 2],
      );
      expect(await store.notificationDeliveries.listByChannel(userId, c.id, { limit: 10 }, { status: 'failed' })).toEqual(
        newest.filter((d) => d.status === 'failed'),
      );
      expect(await store.notificationDeliveries.listByChannel(userId, c.id, { limit: 10 }, {})).toEqual(newest);
      expect(await store.notificationDeliveries.listByChannel(otherUserId, c.id, { limit: 10 })).toEqual([]);
      expect(await store.notificationDeliveries.listByChannel(userId, uid('nch'), { limit: 10 })).toEqual([]);
    });
  });
}

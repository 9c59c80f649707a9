import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StratboxClientError, type StratboxClient } from '@stratbox/client';
import { startTestService, type TestService } from './harness/in-process.js';

/**
 * Broken object-level authorisation: user B, using every strategy route on user A's strategy,
 * gets 404 exactly as for a missing record, and A's strategy is unchanged.
 */
describe('strategies are scoped to their owner', () => {
  let service: TestService;
  let alice: StratboxClient;
  let bob: StratboxClient;
  let id: string;
  const source = 'export function onCandle(ctx, candle) {}\n';

  beforeAll(async () => {
    service = await startTestService();
    alice = (await service.newUser('alice')).client;
    bob = (await service.newUser('bob')).client;
    id = (await alice.strategies.create({ body: { name: 'alpha', description: 'secret edge', source } })).id;
    await bob.strategies.create({ body: { name: 'bob own', source } });
  });
  afterAll(() => service.close());

  async function expect404(call: Promise<unknown>) {
    const error = await call.then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(StratboxClientError);
    expect((error as StratboxClientError).status).toBe(404);
    expect((error as StratboxClientError).code).toBe('NOT_FOUND');
    expect((error as StratboxClientError).message).toBe(`Strategy ${id} not found`);
  }

  const attempts: Record<string, () => Promise<unknown>> = {
    'GET /api/strategies/:id': () => bob.strategies.get({ params: { id } }),
    'GET /api/strategies/:id?version=1': () => bob.strategies.get({ params: { id }, query: { version: 1 } }),
    'PUT /api/strategies/:id (source)': () => bob.strategies.update({ params: { id }, body: { source: 'export function onCandle(){ }' } }),
    'PUT /api/strategies/:id (name)': () => bob.strategies.update({ params: { id }, body: { name: 'stolen' } }),
    'DELETE /api/strategies/:id': () => bob.strategies.delete({ params: { id } }),
  };

  for (const [route, attempt] of Object.entries(attempts)) {
    it(`${route} by another user answers 404 and leaves the strategy unchanged`, async () => {
      const before = await alice.strategies.get({ params: { id } });
      await expect404(attempt());
      expect(await alice.strategies.get({ params: { id } })).toEqual(before);
    });
  }

  it("GET /api/strategies never lists another user's strategy", async () => {
    const list = await bob.strategies.list();
    expect(list.strategies.map((s) => s.name)).toEqual(['bob own']);
  });

  it('a missing id answers the very same 404 as a foreign one', async () => {
    const missing = 'str_' + 'Q'.repeat(22);
    const error = (await bob.strategies.get({ params: { id: missing } }).catch((e: unknown) => e)) as StratboxClientError;
    expect(error.status).toBe(404);
    expect(error.message).toBe(`Strategy ${missing} not found`);
  });
});

/**
 * The same for notification channels: user B, on every channel route with user A's channel, gets
 * the 404 of a missing channel, sends nothing, and A's channel is unchanged.
 */
describe('notification channels are scoped to their owner', () => {
  let service: TestService;
  let alice: StratboxClient;
  let bob: StratboxClient;
  let id: string;

  beforeAll(async () => {
    service = await startTestService({ notifications: { allowHosts: ['127.0.0.1'] } });
    alice = (await service.newUser('alice')).client;
    bob = (await service.newUser('bob')).client;
    // port 9 (discard): nothing listens, so a test send that did go out would fail and show in the log
    id = (await alice.notifications.create({ body: { kind: 'webhook', label: 'alerts', url: 'http://127.0.0.1:9/hook' } })).id;
    await bob.notifications.create({ body: { kind: 'webhook', label: 'bob own', url: 'http://127.0.0.1:9/bob' } });
  });
  afterAll(() => service.close());

  async function notFoundMessage(call: Promise<unknown>): Promise<string> {
    const error = await call.then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(StratboxClientError);
    expect((error as StratboxClientError).status).toBe(404);
    expect((error as StratboxClientError).code).toBe('NOT_FOUND');
    return (error as StratboxClientError).message;
  }

  const attempts: Record<string, () => Promise<unknown>> = {
    'GET /api/notification-channels/:id': () => bob.notifications.get({ params: { id } }),
    'PUT /api/notification-channels/:id (label)': () => bob.notifications.update({ params: { id }, body: { label: 'stolen' } }),
    'PUT /api/notification-channels/:id (paused)': () => bob.notifications.update({ params: { id }, body: { paused: true } }),
    'PUT /api/notification-channels/:id (url)': () => bob.notifications.update({ params: { id }, body: { url: 'http://127.0.0.1:9/stolen' } }),
    'POST /api/notification-channels/:id/test': () => bob.notifications.test({ params: { id } }),
    'GET /api/notification-channels/:id/deliveries': () => bob.notifications.deliveries({ params: { id } }),
    'DELETE /api/notification-channels/:id': () => bob.notifications.delete({ params: { id } }),
  };

  for (const [route, attempt] of Object.entries(attempts)) {
    it(`${route} by another user answers 404 and leaves the channel unchanged`, async () => {
      const before = await alice.notifications.get({ params: { id } });
      const missing = `nch_${'Q'.repeat(22)}`;
      const message = await notFoundMessage(attempt());
      expect(message).toBe((await notFoundMessage(bob.notifications.get({ params: { id: missing } }))).replace(missing, id));
      expect(await alice.notifications.get({ params: { id } })).toEqual(before);
      expect((await alice.notifications.deliveries({ params: { id } })).deliveries).toEqual([]);
    });
  }

  it("GET /api/notification-channels never lists another user's channel", async () => {
    const list = await bob.notifications.list();
    expect(list.channels.map((c) => c.label)).toEqual(['bob own']);
  });
});

/**
 * Listings: the seller's routes (edit, unlist) answer another user the 404 of a missing listing
 * and change nothing. The record route (`GET /api/marketplace/:id/record`) is the documented
 * exception: a verification record is public to anyone authenticated with the link, buyers and
 * strangers alike, also once unlisted, so another user reads it (200, without the source); only
 * an id that never was a listing answers 404.
 */
describe('listings are scoped to their seller, their records are public', () => {
  let service: TestService;
  let alice: StratboxClient;
  let bob: StratboxClient;
  let id: string;
  const marker = `BOLA_SECRET_${Date.now().toString(36)}`;
  const source = `// ${marker}\nexport const meta = { timeframe: '1h' };\nexport function onCandle(ctx, candle) {}\n`;

  beforeAll(async () => {
    service = await startTestService();
    alice = (await service.newUser('alice')).client;
    bob = (await service.newUser('bob')).client;
    const strategyId = (await alice.strategies.create({ body: { name: 'alpha', source } })).id;
    id = (await alice.marketplace.create({ body: { strategyId, name: 'Alpha', price: 0 } })).id;
  });
  afterAll(() => service.close());

  const attempts: Record<string, () => Promise<unknown>> = {
    'PUT /api/marketplace/:id (name)': () => bob.marketplace.update({ params: { id }, body: { name: 'Hijacked' } }),
    'PUT /api/marketplace/:id (strategyVersion)': () => bob.marketplace.update({ params: { id }, body: { strategyVersion: 1 } }),
    'DELETE /api/marketplace/:id': () => bob.marketplace.unlist({ params: { id } }),
  };

  for (const [route, attempt] of Object.entries(attempts)) {
    it(`${route} by another user answers 404 and leaves the listing and its record unchanged`, async () => {
      const before = await alice.marketplace.get({ params: { id } });
      const record = await alice.marketplace.record({ params: { id } });
      const error = (await attempt().then(
        () => null,
        (e: unknown) => e,
      )) as StratboxClientError;
      expect(error).toBeInstanceOf(StratboxClientError);
      expect(error.status).toBe(404);
      expect(error.code).toBe('NOT_FOUND');
      expect(error.message).toBe(`Listing ${id} not found`);
      const after = await alice.marketplace.get({ params: { id } });
      // the record summary is the platform's and may move on meanwhile; the rest is the seller's and unchanged
      expect({ ...after, record: null }).toEqual({ ...before, record: null });
      const recordAfter = await alice.marketplace.record({ params: { id } });
      expect(recordAfter.listed).toBe(true);
      expect(recordAfter.current!.id).toBe(record.current!.id);
      expect(recordAfter.current!.identity).toEqual(record.current!.identity);
      expect(recordAfter.lineage).toEqual([]);
    });
  }

  it('GET /api/marketplace/:id/record is readable by another user (public with the link), without the source', async () => {
    const theirs = await bob.marketplace.record({ params: { id } });
    expect(theirs.listingId).toBe(id);
    expect(theirs.current!.listingId).toBe(id);
    expect(JSON.stringify(theirs)).not.toContain(marker);
    expect(JSON.stringify(theirs)).not.toContain('onCandle');
  });

  it('GET /api/marketplace/:id/record of an id that never was a listing answers 404', async () => {
    const missing = `lst_${'Q'.repeat(22)}`;
    const error = (await bob.marketplace.record({ params: { id: missing } }).catch((e: unknown) => e)) as StratboxClientError;
    expect(error).toBeInstanceOf(StratboxClientError);
    expect(error.status).toBe(404);
    expect(error.message).toBe(`Listing ${missing} not found`);
  });
});

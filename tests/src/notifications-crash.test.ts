import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import { createStratboxClient, verifyWebhook } from '@stratbox/client';
import { listenLocally, type LocalServer } from '@stratbox/core/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { waitFor } from './harness/deferred.js';
import { createUserWithCli, startServerProcess, tempDataDir, type ServerProcess } from './harness/server-process.js';
import { waitFinished } from './harness/wait-backtest.js';

/*
 * A SIGKILL between the change and the delivery loses nothing: the receiver holds the first
 * delivery open (the event is in the outbox and being sent), the server is killed, and the
 * restarted server on the same DATA_DIR sends it again once the dead process's lease has passed.
 */

interface Held {
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

/** A receiver that holds every request open (never answers) until `answerFromNow()`, then answers 200. */
async function startHoldingReceiver(): Promise<LocalServer & { requests: Held[]; answerFromNow(): void }> {
  const requests: Held[] = [];
  const held: ServerResponse[] = [];
  let answering = false;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      requests.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() });
      if (answering) res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      else held.push(res);
    });
  });
  const local = await listenLocally(server);
  return {
    ...local,
    requests,
    answerFromNow() {
      answering = true;
      for (const res of held.splice(0)) if (!res.destroyed) res.writeHead(200).end('ok');
    },
  };
}

describe('notifications across a crash', () => {
  const data = tempDataDir();
  const env = { DATA_DIR: data.dir, STRATBOX_NOTIFY_ALLOW_HOSTS: '127.0.0.1', STRATBOX_NOTIFY_TIMEOUT_MS: '1000' };
  let server: ServerProcess | undefined;
  let receiver: Awaited<ReturnType<typeof startHoldingReceiver>> | undefined;

  afterAll(async () => {
    await server?.stop('SIGKILL');
    await receiver?.close();
    data.remove();
  });

  it('delivers the event after a SIGKILL mid-delivery and a restart: same event id, logged as delivered', { timeout: 240_000 }, async () => {
    receiver = await startHoldingReceiver();
    const user = await createUserWithCli('ops', env);
    // The first process's attempt times out after 3 s (it is killed well before), so its lease on
    // the delivery lasts 2 x 3 + 5 = 11 s: the restarted process sends it once that has passed.
    server = await startServerProcess({ ...env, STRATBOX_NOTIFY_TIMEOUT_MS: '3000' });
    let client = createStratboxClient({ baseUrl: server.baseUrl, apiKey: user.apiKey });
    const channel = await client.notifications.create({
      body: { kind: 'webhook', label: 'held', url: `${receiver.url}/held`, events: ['backtest.completed'] },
    });

    const strategy = await client.strategies.create({ body: { name: 'quiet', source: 'export function onCandle(ctx, c) {}' } });
    const run = await client.backtests.create({
      body: { strategyId: strategy.id, symbols: ['BTC/USDT:USDT'], startDate: '2024-01-01', endDate: '2024-01-03', timeframe: '1h' },
    });
    await waitFor('the first delivery attempt to reach the receiver', () => receiver!.requests.length >= 1, 120_000);
    const first = receiver.requests[0]!;
    const eventId = first.headers['idempotency-key'] as string;
    expect(eventId).toMatch(/^evt_/);
    expect(JSON.parse(first.body)).toMatchObject({ type: 'backtest.completed', subject: { id: run.id } });

    const before = await client.notifications.deliveries({ params: { id: channel.id } });
    expect(before.deliveries.map((d) => [d.status, d.attempts])).toEqual([['pending', 0]]);

    expect(await server.stop('SIGKILL')).toBeNull();
    const killedAt = Date.now();
    receiver.answerFromNow();
    server = await startServerProcess(env);
    client = createStratboxClient({ baseUrl: server.baseUrl, apiKey: user.apiKey });
    expect((await waitFinished(client, run.id)).status).toBe('completed');

    const delivered = await waitFor(
      'the delivery to be logged as delivered after the restart',
      async () => {
        const page = await client.notifications.deliveries({ params: { id: channel.id } });
        return page.deliveries[0]?.status === 'delivered' ? page.deliveries : null;
      },
      120_000,
      100,
    );
    expect(delivered).toHaveLength(1);
    expect(delivered[0]).toMatchObject({ eventId, status: 'delivered', attempts: 1, lastStatusCode: 200, eventType: 'backtest.completed' });

    const after = receiver.requests.slice(1);
    expect(after.length).toBeGreaterThanOrEqual(1);
    expect(after[0]!.at).toBeGreaterThan(killedAt);
    expect(after[0]!.at - killedAt).toBeLessThan(60_000); // the lease ran out; not a retry a day later
    for (const request of after) expect(request.headers['idempotency-key']).toBe(eventId);
    // the restarted server signs with the secret shown once at create
    const payload = await verifyWebhook(after[0]!.body, after[0]!.headers['stratbox-signature'] as string, channel.signingSecret!);
    expect(payload.id).toBe(eventId);
    // one event for the run, and nothing else went missing or doubled
    const events = await client.notifications.events({ query: {} });
    expect(events.events.filter((e) => e.subject.id === run.id).map((e) => e.id)).toEqual([eventId]);
  });
});

import { afterEach, describe, expect, it } from 'vitest';
import type { SendOutcome } from '../ports/notification-sender.js';
import { startWebhookReceiver, type WebhookReceiver, webhookSignatureProblem } from '../testing/webhook-receiver.js';
import { createGuardedHttpClient } from './guarded-http.js';
import { completedEvent, fillDigest, sendRequest } from './test-fixtures.js';
import { createWebhookSender } from './webhook-sender.js';

const secret = 'whsec_0123456789abcdefghijklmnopqrstuvwxyzABCDEFG';
const receivers: WebhookReceiver[] = [];
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});

async function receiver(...answers: Parameters<typeof startWebhookReceiver>[0] & unknown[]) {
  const r = await startWebhookReceiver(answers);
  receivers.push(r);
  return r;
}

const http = createGuardedHttpClient({ allowHosts: '127.0.0.1', timeoutMs: 5_000 });
const sender = createWebhookSender({ http });

function expectNoSecrets(outcome: SendOutcome, ...secrets: string[]) {
  for (const s of secrets) expect(outcome.error ?? '').not.toContain(s);
}

describe('webhook sender', () => {
  it('POSTs the payload as JSON, signed, with the idempotency key and event type', async () => {
    const r = await receiver();
    const outcome = await sender.send(sendRequest({ kind: 'webhook', url: `${r.url}/hooks/stratbox?tenant=7`, signingSecret: secret }));
    expect(outcome).toEqual({ ok: true, statusCode: 200, error: null, retryable: false });
    const [request] = r.requests;
    expect(request).toBeDefined();
    expect(request!.method).toBe('POST');
    expect(request!.path).toBe('/hooks/stratbox?tenant=7');
    expect(request!.headers['content-type']).toBe('application/json');
    expect(request!.headers['idempotency-key']).toBe(completedEvent.id);
    expect(request!.headers['stratbox-event-type']).toBe('backtest.completed');
    expect(request!.headers['user-agent']).toMatch(/^Stratbox/);
    expect(JSON.parse(request!.rawBody)).toEqual(completedEvent);
    expect(webhookSignatureProblem(request!, secret)).toBeNull();
    expect(webhookSignatureProblem(request!, 'whsec_other')).toBe('no v1= signature matches');
    expect(webhookSignatureProblem({ ...request!, rawBody: request!.rawBody.replace('4.20', '4.21') }, secret)).toBe('no v1= signature matches');
  });

  it('sends a digest with its own id as the idempotency key and "digest" as the type', async () => {
    const r = await receiver();
    expect((await sender.send(sendRequest({ kind: 'webhook', url: r.url, signingSecret: secret }, fillDigest))).ok).toBe(true);
    expect(r.requests[0]!.headers['idempotency-key']).toBe(fillDigest.id);
    expect(r.requests[0]!.headers['stratbox-event-type']).toBe('digest');
  });

  it('maps failures: 5xx and 429 retryable with Retry-After, 4xx not, and the secrets never in the error', async () => {
    const path = '/hooks/tok_9f8e7d6c5b4a39281706';
    const r = await receiver(
      { status: 500, body: `boom at ${path} with ${secret}` },
      { status: 429, headers: { 'retry-after': '42' } },
      { status: 503, headers: { 'retry-after': new Date(Date.now() + 60_000).toUTCString() } },
      { status: 410, body: 'gone' },
      { status: 301, headers: { location: 'https://elsewhere.example/' } },
    );
    const request = sendRequest({ kind: 'webhook', url: `${r.url}${path}`, signingSecret: secret });
    const outcomes = [];
    for (let i = 0; i < 5; i++) outcomes.push(await sender.send(request));
    expect(outcomes[0]).toMatchObject({ ok: false, statusCode: 500, retryable: true });
    expect(outcomes[0]!.error).toMatch(/^HTTP 500: boom at/);
    expect(outcomes[1]).toMatchObject({ ok: false, statusCode: 429, retryable: true, retryAfterMs: 42_000 });
    expect(outcomes[2]).toMatchObject({ ok: false, statusCode: 503, retryable: true });
    expect(outcomes[2]!.retryAfterMs).toBeGreaterThan(50_000);
    expect(outcomes[2]!.retryAfterMs).toBeLessThanOrEqual(60_000);
    expect(outcomes[3]).toMatchObject({ ok: false, statusCode: 410, retryable: false, error: 'HTTP 410: gone' });
    expect(outcomes[4]).toMatchObject({ ok: false, statusCode: 301, retryable: false });
    expect(outcomes[4]!.error).toMatch(/Redirect 301 not followed/);
    for (const outcome of outcomes) {
      expectNoSecrets(outcome, secret, path, 'tok_9f8e7d6c5b4a39281706', 'signing');
      expect(outcome.error!.length).toBeLessThanOrEqual(200);
    }
  });

  it('never throws: a refused target, a dead port and a timeout are retryable outcomes without the path', async () => {
    const path = '/hooks/tok_9f8e7d6c5b4a39281706';
    const guarded = createWebhookSender({ http: createGuardedHttpClient({ timeoutMs: 300 }) });
    const refused = await guarded.send(sendRequest({ kind: 'webhook', url: `https://169.254.169.254${path}`, signingSecret: secret }));
    expect(refused).toMatchObject({ ok: false, statusCode: null, retryable: true });
    expect(refused.error).toMatch(/^TARGET_REFUSED: Refused: 169.254.169.254 is a link-local/);

    const r = await receiver();
    const dead = `${r.url}${path}`;
    await r.close();
    receivers.length = 0;
    const connection = await sender.send(sendRequest({ kind: 'webhook', url: dead, signingSecret: secret }));
    expect(connection).toMatchObject({ ok: false, statusCode: null, retryable: true });
    expect(connection.error).toMatch(/^CONNECTION: /);

    const { createServer } = await import('node:http');
    const { listenLocally } = await import('../testing/listen-locally.js');
    const silent = await listenLocally(createServer(() => {}));
    try {
      const slow = createWebhookSender({ http: createGuardedHttpClient({ allowHosts: '127.0.0.1', timeoutMs: 300 }) });
      const timeout = await slow.send(sendRequest({ kind: 'webhook', url: `${silent.url}${path}`, signingSecret: secret }));
      expect(timeout).toMatchObject({ ok: false, statusCode: null, retryable: true });
      expect(timeout.error).toMatch(/^TIMEOUT: /);
      for (const o of [refused, connection, timeout]) expectNoSecrets(o, path, secret);
    } finally {
      await silent.close();
    }
  });

  it('refuses a channel without URL or secret, not retryable', async () => {
    expect(await sender.send(sendRequest({ kind: 'webhook', url: 'https://hooks.example/x' }))).toMatchObject({ ok: false, retryable: false });
  });
});

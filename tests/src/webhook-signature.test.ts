import { verifyWebhook, type WebhookPayload } from '@stratbox/client';
import { newSigningSecret, signWebhook } from '@stratbox/core';
import { describe, expect, it } from 'vitest';

// The server's signer (core) and the receiver's check (client) agree on the scheme.
const payload: WebhookPayload = {
  id: 'evt_4fJq0cWzYb3kR9tLmN2pXa',
  type: 'notification.test',
  severity: 'info',
  time: '2026-03-01T12:00:00.000Z',
  userId: 'usr_4fJq0cWzYb3kR9tLmN2pXa',
  subject: { kind: 'channel', id: 'nch_4fJq0cWzYb3kR9tLmN2pXa' },
  summary: 'Test notification: ünïcødé ✓',
  data: { channelId: 'nch_4fJq0cWzYb3kR9tLmN2pXa' },
};
const body = JSON.stringify(payload);
const now = new Date('2026-03-01T12:00:30.000Z');
const t = Math.floor(now.getTime() / 1000);

async function codeOf(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => 'accepted',
    (error: { code?: unknown }) => error.code,
  );
}

describe("core's signWebhook and the client's verifyWebhook", () => {
  it('a signed body verifies, as text and as bytes', async () => {
    const secret = newSigningSecret();
    const header = signWebhook(body, secret, t);
    expect(await verifyWebhook(body, header, secret, { now })).toEqual(payload);
    expect(await verifyWebhook(new TextEncoder().encode(body), header, secret, { now })).toEqual(payload);
  });

  it('a changed byte, a wrong secret and an old timestamp each fail with their code', async () => {
    const secret = newSigningSecret();
    const header = signWebhook(body, secret, t);
    const bytes = new TextEncoder().encode(body);
    bytes[bytes.length - 3] = bytes[bytes.length - 3]! ^ 0x01;
    expect(await codeOf(verifyWebhook(bytes, header, secret, { now }))).toBe('SIGNATURE_INVALID');
    expect(await codeOf(verifyWebhook(body, header, newSigningSecret(), { now }))).toBe('SIGNATURE_INVALID');
    expect(await codeOf(verifyWebhook(body, signWebhook(body, secret, t - 301), secret, { now }))).toBe('SIGNATURE_EXPIRED');
    expect(await codeOf(verifyWebhook(body, null, secret, { now }))).toBe('SIGNATURE_MISSING');
  });
});

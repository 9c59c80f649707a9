import { createHmac } from 'node:crypto';
import type { WebhookPayload } from '@stratbox/contract';
import { describe, expect, it } from 'vitest';
import { verifyWebhook, type WebhookVerificationError } from './verify-webhook.js';

// The documented scheme, written out independently of Stratbox's signer.
const sign = (body: string, secret: string, t: number) => `t=${t},v1=${createHmac('sha256', secret).update(`${t}.${body}`).digest('hex')}`;

const secret = 'whsec_test-secret-for-verify-webhook-0123456789';
const now = new Date('2026-03-01T12:00:00.000Z');
const t = Math.floor(now.getTime() / 1000);
const event: WebhookPayload = {
  id: 'evt_4fJq0cWzYb3kR9tLmN2pXa',
  type: 'backtest.completed',
  severity: 'info',
  time: '2026-03-01T11:59:58.000Z',
  userId: 'usr_4fJq0cWzYb3kR9tLmN2pXa',
  subject: { kind: 'backtest', id: 'bt_4fJq0cWzYb3kR9tLmN2pXa' },
  summary: 'Backtest bt_4fJq0cWzYb3kR9tLmN2pXa completed: +4.20 %',
  data: {
    backtestId: 'bt_4fJq0cWzYb3kR9tLmN2pXa',
    strategyId: 'str_4fJq0cWzYb3kR9tLmN2pXa',
    metrics: { totalReturn: 0.042, maxDrawdown: 0.1, sharpe: 1.2, tradeCount: 12 },
  },
};
const body = JSON.stringify(event);

async function code(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toMatchObject({ name: 'WebhookVerificationError' });
  return (error as WebhookVerificationError).code;
}

describe('verifyWebhook', () => {
  it('returns the payload of a correctly signed, fresh delivery (text or bytes)', async () => {
    expect(await verifyWebhook(body, sign(body, secret, t), secret, { now })).toEqual(event);
    expect(await verifyWebhook(new TextEncoder().encode(body), sign(body, secret, t - 299), secret, { now })).toEqual(event);
  });

  it('accepts any one of several v1 signatures (secret rotation), and several secrets', async () => {
    const header = `${sign(body, 'whsec_old-secret-000000000', t)},v1=${sign(body, secret, t).split('v1=')[1]}`;
    await expect(verifyWebhook(body, header, secret, { now })).resolves.toEqual(event);
    await expect(verifyWebhook(body, sign(body, secret, t), ['whsec_new-secret-11111111', secret], { now })).resolves.toEqual(event);
  });

  it('refuses a missing header', async () => {
    expect(await code(verifyWebhook(body, undefined, secret, { now }))).toBe('SIGNATURE_MISSING');
    expect(await code(verifyWebhook(body, null, secret, { now }))).toBe('SIGNATURE_MISSING');
    expect(await code(verifyWebhook(body, ' ', secret, { now }))).toBe('SIGNATURE_MISSING');
  });

  it('refuses a body changed by one byte, a wrong secret and a malformed header', async () => {
    const header = sign(body, secret, t);
    const changed = body.replace('+4.20', '+5.20');
    expect(changed).not.toBe(body);
    expect(await code(verifyWebhook(changed, header, secret, { now }))).toBe('SIGNATURE_INVALID');
    const bytes = new TextEncoder().encode(body);
    bytes[10] = bytes[10]! ^ 1;
    expect(await code(verifyWebhook(bytes, header, secret, { now }))).toBe('SIGNATURE_INVALID');
    expect(await code(verifyWebhook(body, header, 'whsec_wrong', { now }))).toBe('SIGNATURE_INVALID');
    expect(await code(verifyWebhook(body, header.replace(/^t=\d+/, `t=${t + 1}`), secret, { now }))).toBe('SIGNATURE_INVALID');
    expect(await code(verifyWebhook(body, `t=${t}`, secret, { now }))).toBe('SIGNATURE_INVALID');
    expect(await code(verifyWebhook(body, header.replace(/^t=\d+,/, ''), secret, { now }))).toBe('SIGNATURE_INVALID');
    expect(await code(verifyWebhook(body, `t=${t},v1=abc`, secret, { now }))).toBe('SIGNATURE_INVALID');
  });

  it('refuses a signature older or newer than the tolerance (a replay)', async () => {
    expect(await code(verifyWebhook(body, sign(body, secret, t - 301), secret, { now }))).toBe('SIGNATURE_EXPIRED');
    expect(await code(verifyWebhook(body, sign(body, secret, t + 301), secret, { now }))).toBe('SIGNATURE_EXPIRED');
    expect(await code(verifyWebhook(body, sign(body, secret, t - 60), secret, { now, toleranceSeconds: 30 }))).toBe('SIGNATURE_EXPIRED');
    // The current time is the default.
    const fresh = Math.floor(Date.now() / 1000);
    await expect(verifyWebhook(body, sign(body, secret, fresh), secret)).resolves.toEqual(event);
    expect(await code(verifyWebhook(body, sign(body, secret, fresh - 3600), secret))).toBe('SIGNATURE_EXPIRED');
  });

  it('refuses a correctly signed body that is not a payload of the contract', async () => {
    for (const other of ['not json', JSON.stringify({ ...event, type: 'nope' }), JSON.stringify({ hello: 'world' })]) {
      expect(await code(verifyWebhook(other, sign(other, secret, t), secret, { now }))).toBe('PAYLOAD_INVALID');
    }
  });
});

import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { newSigningSecret, signWebhook } from './webhook-signature.js';

describe('signWebhook', () => {
  it('gives t=<unix seconds>,v1=<hex HMAC-SHA256(secret, t.body)>', () => {
    const body = '{"id":"evt_x","summary":"é ✓"}';
    const header = signWebhook(body, 'whsec_abc', 1_767_225_600.9);
    const expected = createHmac('sha256', 'whsec_abc')
      .update(Buffer.from(`1767225600.${body}`, 'utf8'))
      .digest('hex');
    expect(header).toBe(`t=1767225600,v1=${expected}`);
    expect(signWebhook(body, 'whsec_abd', 1_767_225_600)).not.toBe(header);
    expect(signWebhook(`${body} `, 'whsec_abc', 1_767_225_600)).not.toBe(header);
  });
});

describe('newSigningSecret', () => {
  it('is whsec_ and 32 random bytes in base64url, new each time', () => {
    const a = newSigningSecret();
    const b = newSigningSecret();
    expect(a).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(a.slice(6), 'base64url')).toHaveLength(32);
    expect(a).not.toBe(b);
  });
});

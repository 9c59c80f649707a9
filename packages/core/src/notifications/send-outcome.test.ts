import { describe, expect, it } from 'vitest';
import { cleanError, isRetryableStatus, parseRetryAfter, targetSecrets } from './send-outcome.js';

describe('parseRetryAfter', () => {
  const now = new Date('2026-03-01T12:00:00.000Z');
  it('reads seconds and HTTP dates', () => {
    expect(parseRetryAfter('30', now)).toBe(30_000);
    expect(parseRetryAfter('1.5', now)).toBe(1_500);
    expect(parseRetryAfter('Sun, 01 Mar 2026 12:02:00 GMT', now)).toBe(120_000);
    expect(parseRetryAfter('Sun, 01 Mar 2026 11:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });
});

describe('isRetryableStatus', () => {
  it('retries what can get better and nothing else', () => {
    expect([500, 502, 503, 408, 425, 429, 302, 307].every(isRetryableStatus)).toBe(true);
    expect([400, 401, 403, 404, 410, 413, 422, 301, 308].some(isRetryableStatus)).toBe(false);
  });
});

describe('cleanError', () => {
  it('masks the URL path, tokens in it and the secrets, keeps ordinary words, and stays short', () => {
    const url = 'https://hooks.example/api/webhooks/112233445566778899/tok-Secret-abcdefghijklmnop?key=q1w2e3r4t5';
    const secrets = targetSecrets(['whsec_signing-secret-value'], [url]);
    const text = cleanError(
      `HTTP 500: failed for ${url} and /api/webhooks/112233445566778899/tok-Secret-abcdefghijklmnop with whsec_signing-secret-value key q1w2e3r4t5 Unknown webhooks ${'x'.repeat(300)}`,
      secrets,
    );
    expect(text).not.toContain('112233445566778899');
    expect(text).not.toContain('tok-Secret');
    expect(text).not.toContain('signing-secret');
    expect(text).not.toContain('q1w2e3r4t5');
    expect(text).toContain('Unknown webhooks');
    expect(text.length).toBeLessThanOrEqual(200);
  });
});

import { describe, expect, it } from 'vitest';
import { DEFAULT_RATE_LIMITS } from '@stratbox/core';
import { parseEnv } from './env.js';
import { parseRateLimit, readRateLimits } from './rate-limit-config.js';

describe('rate limit settings', () => {
  it('reads <requests>/<window> with s, m or h, or seconds without a unit', () => {
    expect(parseRateLimit('X', '1200/1m')).toEqual({ points: 1200, durationSeconds: 60 });
    expect(parseRateLimit('X', '1200/60')).toEqual({ points: 1200, durationSeconds: 60 });
    expect(parseRateLimit('X', '20/s')).toEqual({ points: 20, durationSeconds: 1 });
    expect(parseRateLimit('X', ' 5000 / 1h ')).toEqual({ points: 5000, durationSeconds: 3600 });
  });

  it('refuses anything else, naming the setting', () => {
    for (const bad of ['1200', '1200/', '0/1m', '10/0s', '1.5/1m', 'lots']) {
      expect(() => parseRateLimit('STRATBOX_RATE_LIMIT', bad), bad).toThrow(/^STRATBOX_RATE_LIMIT /);
    }
  });

  it('defaults to DEFAULT_RATE_LIMITS, takes each scope from its variable, and off turns limiting off', () => {
    expect(readRateLimits(parseEnv({}))).toEqual(DEFAULT_RATE_LIMITS);
    expect(readRateLimits(parseEnv({ STRATBOX_RATE_LIMIT: '10/1s', STRATBOX_RATE_LIMIT_IP: '3/1m' }))).toEqual({
      user: { points: 10, durationSeconds: 1 },
      ip: { points: 3, durationSeconds: 60 },
    });
    expect(readRateLimits(parseEnv({ STRATBOX_RATE_LIMIT: 'off' }))).toBeNull();
  });
});

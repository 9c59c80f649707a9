import { createServer } from 'node:http';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryRateLimiter, createSilentLogger, createStratbox, ErrorBody, type RateLimiter, type Stratbox } from '@stratbox/core';
import { listenLocally, type LocalServer } from '@stratbox/core/testing';
import { createStratboxRouter } from './create-stratbox-router.js';

/*
 * The router's rate limiting over real HTTP, with the in-memory limiter: per user once
 * authenticated, per client address otherwise; 429 RATE_LIMITED with the documented body and
 * Retry-After; RateLimit-Limit, -Remaining and -Reset on every counted response.
 */

interface Answer {
  status: number;
  headers: Headers;
  body: unknown;
}

describe('rate limiting in the Express router', () => {
  let stratbox: Stratbox;
  const servers: LocalServer[] = [];
  let alice: string;
  let bob: string;

  beforeAll(async () => {
    stratbox = createStratbox({ logger: createSilentLogger() });
    alice = (await stratbox.users.createUser('alice')).apiKey;
    bob = (await stratbox.users.createUser('bob')).apiKey;
  });
  afterAll(async () => {
    for (const server of servers) await server.close();
    await stratbox.close();
  });

  /** A router on its own server with `rateLimiter`, and a function that calls it. */
  async function serve(rateLimiter?: RateLimiter | false) {
    const app = express();
    app.use(createStratboxRouter(stratbox, rateLimiter === undefined ? {} : { rateLimiter }));
    const server = await listenLocally(createServer(app));
    servers.push(server);
    return async (path: string, init: { key?: string | null; method?: string; body?: string } = {}): Promise<Answer> => {
      const headers: Record<string, string> = {};
      if (init.key) headers.authorization = `Bearer ${init.key}`;
      const res = await fetch(server.url + path, { method: init.method ?? 'GET', headers, ...(init.body === undefined ? {} : { body: init.body }) });
      const text = await res.text();
      return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
    };
  }

  const limits = (user: number, ip: number, durationSeconds = 60) =>
    createMemoryRateLimiter({ user: { points: user, durationSeconds }, ip: { points: ip, durationSeconds } });

  function expectRateLimited(answer: Answer, limit: number, windowSeconds: number) {
    expect(answer.status).toBe(429);
    const body = ErrorBody.parse(answer.body);
    expect(body.error.code).toBe('RATE_LIMITED');
    expect(body.error.message).toMatch(/retry in \d+ s/);
    const retryAfter = Number(answer.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(windowSeconds);
    expect(body.error.details).toMatchObject({ retryAfterSeconds: retryAfter, limit });
    expect(answer.headers.get('ratelimit-limit')).toBe(String(limit));
    expect(answer.headers.get('ratelimit-remaining')).toBe('0');
  }

  it('a user over the limit gets 429 RATE_LIMITED with Retry-After; the RateLimit headers count down before', async () => {
    const call = await serve(limits(5, 100));
    for (let i = 0; i < 5; i++) {
      const answer = await call('/api/strategies', { key: alice });
      expect(answer.status).toBe(200);
      expect(answer.headers.get('ratelimit-limit')).toBe('5');
      expect(answer.headers.get('ratelimit-remaining')).toBe(String(4 - i));
      const reset = Number(answer.headers.get('ratelimit-reset'));
      expect(reset).toBeGreaterThan(0);
      expect(reset).toBeLessThanOrEqual(60);
    }
    expectRateLimited(await call('/api/strategies', { key: alice }), 5, 60);
    // every route of the user shares the count, whatever its answer would have been
    expectRateLimited(await call('/api/strategies/str_AAAAAAAAAAAAAAAAAAAAAA', { key: alice }), 5, 60);
  });

  it('one user using up their allowance never affects another user', async () => {
    const call = await serve(limits(3, 100));
    for (let i = 0; i < 3; i++) expect((await call('/api/strategies', { key: alice })).status).toBe(200);
    expect((await call('/api/strategies', { key: alice })).status).toBe(429);
    for (let i = 0; i < 3; i++) {
      const answer = await call('/api/strategies', { key: bob });
      expect(answer.status).toBe(200);
      expect(answer.headers.get('ratelimit-remaining')).toBe(String(2 - i));
    }
    expect((await call('/api/strategies', { key: bob })).status).toBe(429);
  });

  it('requests without valid credentials are counted per client address: 401 until the limit, then 429', async () => {
    const call = await serve(limits(100, 4));
    const first = await call('/api/strategies', { key: null });
    expect(first.status).toBe(401);
    expect(first.headers.get('ratelimit-limit')).toBe('4');
    expect(first.headers.get('ratelimit-remaining')).toBe('3');
    expect((await call('/api/strategies', { key: 'sbx_wrong' })).status).toBe(401);
    // the billing webhook (signature-authenticated) and wrong methods on contract paths count per address too
    const webhook = await call('/api/billing/webhook', { method: 'POST', body: '{}' });
    expect(webhook.headers.get('ratelimit-remaining')).toBe('1');
    expect((await call('/api/strategies', { method: 'PATCH', key: null })).status).toBe(404);
    expectRateLimited(await call('/api/strategies', { key: 'sbx_wrong' }), 4, 60);
    expectRateLimited(await call('/api/billing/webhook', { method: 'POST', body: '{}' }), 4, 60);
    expectRateLimited(await call('/api/openapi.json'), 4, 60);
    // a user calling from the same address has an allowance of their own
    const user = await call('/api/strategies', { key: alice });
    expect(user.status).toBe(200);
    expect(user.headers.get('ratelimit-limit')).toBe('100');
  });

  it('the allowance comes back when the window ends', async () => {
    const call = await serve(limits(2, 100, 1));
    expect((await call('/api/strategies', { key: alice })).status).toBe(200);
    expect((await call('/api/strategies', { key: alice })).status).toBe(200);
    const refused = await call('/api/strategies', { key: alice });
    expectRateLimited(refused, 2, 1);
    // A client that waits as long as Retry-After says (whole seconds, rounded up) gets through:
    // the window ended meanwhile. A slow machine only makes the wait longer, never too short.
    await new Promise((resolve) => setTimeout(resolve, Number(refused.headers.get('retry-after')) * 1000 + 50));
    const answer = await call('/api/strategies', { key: alice });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('ratelimit-remaining')).toBe('1');
  });

  it('requests arriving at once never get more than the limit through', async () => {
    const call = await serve(limits(10, 100));
    const answers = await Promise.all(Array.from({ length: 25 }, () => call('/api/strategies', { key: bob })));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(10);
    expect(answers.filter((a) => a.status === 429)).toHaveLength(15);
  });

  it('by default: 1,200 a minute per user and 300 per address without credentials', async () => {
    const call = await serve();
    const user = await call('/api/strategies', { key: alice });
    expect(user.headers.get('ratelimit-limit')).toBe('1200');
    expect(user.headers.get('ratelimit-remaining')).toBe('1199');
    const anonymous = await call('/api/strategies', { key: null });
    expect(anonymous.headers.get('ratelimit-limit')).toBe('300');
  });

  it('rateLimiter: false counts nothing and sets no RateLimit headers', async () => {
    const call = await serve(false);
    const answer = await call('/api/strategies', { key: alice });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('ratelimit-limit')).toBeNull();
  });
});

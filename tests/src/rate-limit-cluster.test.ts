import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorBody } from '@stratbox/core/contract';
import { isolatedBackends, requirePostgresAndRedis, startNode, type NodeProcess } from './harness/cluster.js';
import { createUserWithCli } from './harness/server-process.js';

/**
 * Rate limiting across two API processes sharing Redis: two example-server processes (role api)
 * on one PostgreSQL schema and one Redis prefix. A caller's requests, spread over both nodes,
 * use up one shared allowance: per user, and per client address without credentials.
 */
const available = await requirePostgresAndRedis('rate-limit-cluster');

describe.runIf(available)('rate limiting across two API processes sharing Redis', () => {
  const backends = isolatedBackends('ratelimit');
  const env = { ...backends.env, STRATBOX_RATE_LIMIT: '10/60s', STRATBOX_RATE_LIMIT_IP: '6/1m' };
  const nodes: Array<NodeProcess & { baseUrl?: string }> = [];
  let urls: [string, string];
  let alice: string;
  let bob: string;

  beforeAll(async () => {
    alice = (await createUserWithCli('alice', env)).apiKey; // also migrates the schema once
    bob = (await createUserWithCli('bob', env)).apiKey;
    const started = await Promise.all([startNode({ ...env, STRATBOX_ROLE: 'api' }, 'listening'), startNode({ ...env, STRATBOX_ROLE: 'api' }, 'listening')]);
    nodes.push(...started);
    urls = [started[0].baseUrl!, started[1].baseUrl!];
  }, 120_000);

  afterAll(async () => {
    await Promise.allSettled(nodes.map((n) => n.stop('SIGTERM')));
    await backends.remove();
  });

  async function call(node: 0 | 1, key: string | null) {
    const res = await fetch(`${urls[node]}/api/strategies`, { headers: key ? { authorization: `Bearer ${key}` } : {} });
    const text = await res.text();
    return {
      status: res.status,
      remaining: res.headers.get('ratelimit-remaining'),
      limit: res.headers.get('ratelimit-limit'),
      retryAfter: res.headers.get('retry-after'),
      text,
    };
  }

  it("a user's requests alternating between the nodes use up one allowance of 10; another user is unaffected", async () => {
    for (let i = 0; i < 10; i++) {
      const answer = await call((i % 2) as 0 | 1, alice);
      expect(answer.status, answer.text).toBe(200);
      expect(answer.limit).toBe('10');
      expect(answer.remaining).toBe(String(9 - i));
    }
    for (const node of [0, 1] as const) {
      const refused = await call(node, alice);
      expect(refused.status, refused.text).toBe(429);
      expect(ErrorBody.parse(JSON.parse(refused.text)).error.code).toBe('RATE_LIMITED');
      expect(Number(refused.retryAfter)).toBeGreaterThanOrEqual(1);
      expect(Number(refused.retryAfter)).toBeLessThanOrEqual(60);
    }
    for (const node of [0, 1] as const) expect((await call(node, bob)).status).toBe(200);
    expect((await call(1, bob)).remaining).toBe('7');
  });

  it('requests without credentials use up one allowance per address across both nodes', async () => {
    const statuses = [];
    for (let i = 0; i < 8; i++) statuses.push((await call((i % 2) as 0 | 1, i % 3 ? null : 'sbx_wrong')).status);
    expect(statuses).toEqual([401, 401, 401, 401, 401, 401, 429, 429]);
  });

  it('at once on both nodes, exactly the limit gets through', async () => {
    const carol = (await createUserWithCli('carol', env)).apiKey;
    const answers = await Promise.all(Array.from({ length: 24 }, (_, i) => call((i % 2) as 0 | 1, carol)));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(10);
    expect(answers.filter((a) => a.status === 429)).toHaveLength(14);
  });
});

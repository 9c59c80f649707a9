import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StratboxClient } from '@stratbox/client';
import { startTestService, type TestService } from './harness/in-process.js';
import { failure } from './harness/client-errors.js';

/**
 * Sources under the size limit that are built to exhaust a parser: each is refused with
 * 400 VALIDATION_FAILED, and the next save (by anyone) works. Before the fix the first of these
 * killed the compiler and every later save answered 500 until a restart.
 */
const head = 'export function onCandle(ctx, c) {}\n';
const CORPUS: Record<string, string> = {
  'deep brackets': `export function onCandle(ctx,c){ const x = ${'['.repeat(250_000)}${']'.repeat(250_000)}; }`,
  'deep braces': `${head}${'{'.repeat(150_000)}${'}'.repeat(150_000)}`,
  'deep object literals': `${head}const y = ${'{a:'.repeat(80_000)}1${'}'.repeat(80_000)};`,
  'deep parentheses': `${head}const z = ${'('.repeat(200_000)}1${')'.repeat(200_000)};`,
  'nested template literals': `${head}const t = ${'`${'.repeat(40_000)}1${'}`'.repeat(40_000)};`,
  'regex backtracking at load': `${head}const r = /^(a+)+$/; export const hit = r.test("${'a'.repeat(40)}!");`,
  'a 500 KB expression': `${head}const s = ${'1+'.repeat(240_000)}1;`,
};

describe('parser bombs over HTTP', () => {
  let service: TestService;
  let attacker: StratboxClient;
  let other: StratboxClient;

  beforeAll(async () => {
    service = await startTestService();
    attacker = (await service.newUser('attacker')).client;
    other = (await service.newUser('other')).client;
  });
  afterAll(() => service.close());

  it.each(Object.entries(CORPUS))('refuses %s with 400, and the next save by another user works', { timeout: 60_000 }, async (_name, source) => {
    expect(Buffer.byteLength(source)).toBeLessThanOrEqual(512_000);
    const refused = await failure(attacker.strategies.create({ body: { name: 'bomb', source } }));
    expect(refused.status).toBe(400);
    expect(refused.code).toBe('VALIDATION_FAILED');
    const saved = await other.strategies.create({ body: { name: 'fine', source: 'export function onCandle(ctx, c) {}' } });
    expect(saved.version).toBe(1);
  });
});

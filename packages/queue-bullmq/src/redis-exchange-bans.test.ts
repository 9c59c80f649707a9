import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { createExchangeClientPool, createCcxtExchange, newClientOrderId, type ExchangeGatewayError, moveExchangeApi } from '@stratbox/core';
import { FAKE_BINANCE_API_KEY, FAKE_BINANCE_SECRET, startFakeBinance } from '@stratbox/core/testing';
import { createRedisExchangeBans, type RedisExchangeBans } from './redis-exchange-bans.js';
import { deleteKeys, REDIS_URL, requireRedis, uniquePrefix } from './testing/test-redis.js';

const available = await requireRedis('queue-bullmq: Redis exchange bans');

describe.runIf(available)('the Redis exchange bans (ExchangeBans port on Redis)', () => {
  const prefixes: string[] = [];
  const stores: RedisExchangeBans[] = [];
  const node = async (prefix: string) => {
    const bans = createRedisExchangeBans({ connection: REDIS_URL, prefix });
    stores.push(bans);
    await bans.ready();
    return bans;
  };
  const fresh = (name: string) => {
    const prefix = uniquePrefix(name);
    prefixes.push(prefix);
    return prefix;
  };
  afterAll(async () => {
    await Promise.all(stores.map((s) => s.close()));
    for (const prefix of prefixes) await deleteKeys(prefix);
  });

  it('a ban one node records is seen by the other, never shortened, kept under <prefix>:exchange-ban: with its expiry', async () => {
    const prefix = fresh('bans-shared');
    const [a, b] = [await node(prefix), await node(prefix)];
    const until = Date.now() + 60_000;
    await a.banUntil('binanceusdm:cred_1', until);
    expect(await b.bannedUntil('binanceusdm:cred_1')).toBe(until);
    await b.banUntil('binanceusdm:cred_1', until - 30_000);
    expect(await a.bannedUntil('binanceusdm:cred_1')).toBe(until);
    expect(await b.bannedUntil('binanceusdm:cred_2')).toBeNull();
    expect(await (await node(fresh('bans-other'))).bannedUntil('binanceusdm:cred_1')).toBeNull();
    const redis = new Redis(REDIS_URL);
    try {
      expect(await redis.keys(`${prefix}:*`)).toEqual([`${prefix}:exchange-ban:binanceusdm:cred_1`]);
      expect(await redis.pttl(`${prefix}:exchange-ban:binanceusdm:cred_1`)).toBeGreaterThan(50_000);
    } finally {
      redis.disconnect();
    }
  });

  it('a ban that ended is not answered', async () => {
    const a = await node(fresh('bans-ended'));
    await a.banUntil('k', Date.now() - 1);
    expect(await a.bannedUntil('k')).toBeNull();
  });

  it("two processes' pools on one credential: a 418 one is answered holds the other one's orders back (real ccxt against the local double)", async () => {
    const prefix = fresh('bans-nodes');
    const fake = await startFakeBinance();
    const pools = [await node(prefix), await node(prefix)].map((bans) =>
      createExchangeClientPool({
        bans,
        retry: { maxAttempts: 2, baseDelayMs: 5, maxDelayMs: 10 },
        async createExchange(id, config) {
          const exchange = await createCcxtExchange(id, { ...config, timeout: 2000 });
          moveExchangeApi(exchange, fake.url);
          return exchange;
        },
      }),
    );
    try {
      const credential = { id: 'cred_x', exchange: 'binanceusdm', testnet: false, secrets: { apiKey: FAKE_BINANCE_API_KEY, secret: FAKE_BINANCE_SECRET } };
      const [a, b] = await Promise.all(pools.map((p) => p.acquire(credential)));
      fake.account.rateLimits.push({ status: 418, retryAfterSeconds: 60, on: 'order' });
      const order = () => ({ clientOrderId: newClientOrderId(), symbol: 'BTC/USDT:USDT', side: 'buy' as const, type: 'market' as const, quantity: 0.01 });
      await expect(a!.createOrder(order())).rejects.toMatchObject({ reason: 'unavailable' });
      const held = (await b!.createOrder(order()).catch((e: unknown) => e)) as ExchangeGatewayError;
      expect(held.reason).toBe('unavailable');
      expect(held.message).toMatch(/until .*was not sent$/);
      expect(fake.calls.filter((c) => c.method === 'POST' && c.path === '/fapi/v1/order')).toHaveLength(1);
      expect(fake.account.requestsDuringBan).toEqual([]);
    } finally {
      await Promise.all(pools.map((p) => p.close()));
      await fake.close();
    }
  });
});

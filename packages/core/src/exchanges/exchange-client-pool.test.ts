import type { Exchange } from 'ccxt';
import { asCcxt } from './ccxt-exchange.js';
import { describe, expect, it } from 'vitest';
import { StratboxError } from '../errors/stratbox-error.js';
import { ExchangeGatewayError } from '../ports/exchange-gateway.js';
import { createCcxtExchange } from '../market-data/ccxt-market-data.js';
import { newClientOrderId } from './client-order-id.js';
import { createExchangeClientPool, type PoolCredential } from './exchange-client-pool.js';

const credential = (overrides: Partial<PoolCredential> = {}): PoolCredential => ({
  id: `cred_${Math.random().toString(36).slice(2)}AAAAAAAAAAAAAAAA`,
  exchange: 'binanceusdm',
  testnet: false,
  secrets: { apiKey: 'key-1234', secret: 'secret-5678' },
  ...overrides,
});

/** Real ccxt classes (no request is made), counting what the pool creates. */
function countingFactory() {
  const created: Exchange[] = [];
  const createExchange = async (id: string, config: Record<string, unknown>) => {
    const exchange = await createCcxtExchange(id, config);
    created.push(asCcxt(exchange));
    return exchange;
  };
  return { created, createExchange };
}

describe('createExchangeClientPool', () => {
  it('shares one ccxt client (one rate limiter) and one gateway among the deployments of a credential', async () => {
    const { created, createExchange } = countingFactory();
    const pool = createExchangeClientPool({ createExchange });
    const cred = credential();
    const [a, b] = await Promise.all([pool.acquire(cred), pool.acquire(cred)]);
    const c = await pool.acquire(cred);
    expect(a).toBe(b);
    expect(c).toBe(a);
    expect(created).toHaveLength(1);
    const exchange = created[0]!;
    expect(exchange.id).toBe('binanceusdm');
    expect(exchange.apiKey).toBe('key-1234');
    expect(exchange.secret).toBe('secret-5678');
    expect(exchange.enableRateLimit).toBe(true);
    expect(exchange.options['defaultType']).toBe('swap');
    expect(exchange.isSandboxModeEnabled).toBe(false);
    expect(pool.clients()).toEqual([{ credentialId: cred.id, leases: 3 }]);

    // A SPOT gateway on the same credential is another gateway over the same client.
    const spot = await pool.acquire(cred, 'SPOT');
    expect(spot).not.toBe(a);
    expect(created).toHaveLength(1);

    const other = await pool.acquire(credential({ exchange: 'bybit', secrets: { apiKey: 'k2', secret: 's2', password: 'p2' } }));
    expect(other.exchangeId).toBe('bybit');
    expect(created).toHaveLength(2);
    expect(created[1]!.password).toBe('p2');
    await pool.close();
  });

  it('closes the client when the last lease ends, and makes a new one on the next acquire', async () => {
    const { created, createExchange } = countingFactory();
    const pool = createExchangeClientPool({ createExchange });
    const cred = credential();
    await pool.acquire(cred);
    await pool.acquire(cred);
    pool.release(cred.id);
    expect(pool.clients()).toEqual([{ credentialId: cred.id, leases: 1 }]);
    pool.release(cred.id);
    expect(pool.clients()).toEqual([]);
    pool.release(cred.id); // extra releases are ignored
    await pool.acquire(cred);
    expect(created).toHaveLength(2);
    await pool.close();
    await expect(pool.acquire(cred)).rejects.toThrow('closed');
  });

  it("switches to the exchange's testnet when the credential says so", async () => {
    const { created, createExchange } = countingFactory();
    const pool = createExchangeClientPool({ createExchange });
    await pool.acquire(credential({ testnet: true }));
    expect(created[0]!.isSandboxModeEnabled).toBe(true);
    expect(JSON.stringify(created[0]!.urls['api'])).toContain('testnet');
    await pool.close();
  });

  it('refuses an exchange ccxt does not know, and forgets the failed client', async () => {
    const pool = createExchangeClientPool();
    const cred = credential({ exchange: 'nosuchexchange' });
    const error = await pool.acquire(cred).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StratboxError);
    expect((error as StratboxError).code).toBe('VALIDATION_FAILED');
    expect(pool.clients()).toEqual([]);
  });

  it('keeps a paper account per credential across leases', async () => {
    const prices: Record<string, number> = { 'BTC/USDT:USDT': 100 };
    const pool = createExchangeClientPool({ paper: { prices: (s) => prices[s], initialBalance: 1_000 } });
    const cred = credential({ exchange: 'paper' });
    const first = await pool.acquire(cred);
    expect(first.exchangeId).toBe('paper');
    await first.createOrder({ clientOrderId: newClientOrderId(), symbol: 'BTC/USDT:USDT', side: 'buy', type: 'market', quantity: 2 });
    pool.release(cred.id);
    const again = await pool.acquire(cred);
    expect(again).toBe(first);
    expect((await again.fetchPositions(['BTC/USDT:USDT']))[0]?.quantity).toBe(2);
    const elsewhere = await pool.acquire(credential({ exchange: 'paper' }));
    expect(await elsewhere.fetchPositions(['BTC/USDT:USDT'])).toEqual([]);
    expect(pool.clients()).toEqual([]);
  });

  it('refuses paper credentials when no price source is configured', async () => {
    const pool = createExchangeClientPool();
    const error = await pool.acquire(credential({ exchange: 'paper' })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ExchangeGatewayError);
    expect((error as ExchangeGatewayError).reason).toBe('not_supported');
  });
});

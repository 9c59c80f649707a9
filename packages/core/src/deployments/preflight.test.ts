import ccxt from 'ccxt';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createCcxtGateway } from '../exchanges/ccxt-gateway.js';
import { newClientOrderId } from '../exchanges/client-order-id.js';
import { createPaperGateway } from '../exchanges/paper-gateway.js';
import type { ExchangeGateway } from '../ports/exchange-gateway.js';
import { FAKE_BINANCE_API_KEY, FAKE_BINANCE_SECRET, startFakeBinance, type FakeBinance } from '../testing/fake-binance-usdm.js';
import { runPreflight, symbolsMarketType } from './preflight.js';
import { moveExchangeApi } from '../exchanges/move-exchange-api.js';

/*
 * Pre-flight checks through the real ccxt binanceusdm class against the local double, and on the
 * paper exchange. Fault 10 of issue #24: a hedge-mode account and a clock 2 s off are set right
 * (or refused, naming the fix) before the first order.
 */

const SYMBOL = 'BTC/USDT:USDT';

function binanceAt(fake: FakeBinance) {
  const exchange = new ccxt.binanceusdm({
    apiKey: FAKE_BINANCE_API_KEY,
    secret: FAKE_BINANCE_SECRET,
    enableRateLimit: true,
    timeout: 2000,
    options: { defaultType: 'swap', defaultSubType: 'linear' },
  });
  moveExchangeApi(exchange, fake.url);
  return exchange;
}

describe('runPreflight with the real binanceusdm class against the local double', () => {
  let fake: FakeBinance;
  let gateway: ExchangeGateway;

  beforeEach(async () => {
    fake = await startFakeBinance();
    gateway = createCcxtGateway({ exchange: binanceAt(fake), marketType: 'LINEAR', retry: { maxAttempts: 2, baseDelayMs: 5, maxDelayMs: 10 } });
  });
  afterEach(() => fake.close());

  const orderPosts = () => fake.calls.filter((c) => c.method === 'POST' && c.path === '/fapi/v1/order');
  const buy = (g: ExchangeGateway) => g.createOrder({ clientOrderId: newClientOrderId(), symbol: SYMBOL, side: 'buy', type: 'market', quantity: 0.01 });

  it('a hedge-mode account with this clock 2 s ahead: the first order is refused without the checks', async () => {
    fake.account.dualSidePosition = true;
    fake.account.clockSkewMs = -2000;
    await expect(buy(gateway)).rejects.toMatchObject({ reason: 'unavailable' });
    expect(fake.orders.size).toBe(0);
  });

  it('a hedge-mode account with this clock 2 s ahead: set right before the first order, which then fills', async () => {
    fake.account.dualSidePosition = true;
    fake.account.clockSkewMs = -2000;
    const result = await runPreflight(gateway, [SYMBOL]);
    expect(result.failure).toBeNull();
    expect(result.ok).toBe(true);
    expect(result.clockOffsetMs).toBeGreaterThan(-2600);
    expect(result.clockOffsetMs).toBeLessThan(-1400);
    expect(result.checks.map((c) => [c.name, c.ok])).toEqual([
      ['clock', true],
      ['credential', true],
      ['symbols', true],
      ['limits', true],
      ['position_mode', true],
      ['leverage', true],
    ]);
    expect(result.checks[0]!.message).toMatch(/^This server's clock is \d+ ms ahead of binanceusdm's: requests are timed by binanceusdm's clock$/);
    expect(result.checks[3]!.message).toBe('BTC/USDT:USDT: amount step 0.001, price step 0.1, min quantity 0.001, min notional 5');
    expect(result.checks[4]!.message).toBe('binanceusdm account was in hedge mode: switched to one-way mode');
    expect(fake.account.dualSidePosition).toBe(false);
    expect(orderPosts()).toHaveLength(0);

    expect(await buy(gateway)).toMatchObject({ status: 'filled', filledQuantity: 0.01 });
    expect(orderPosts()).toHaveLength(1);
  });

  it('refuses a hedge-mode account that will not switch, naming the fix, and sends no order', async () => {
    fake.account.dualSidePosition = true;
    fake.account.refusePositionModeChange = true;
    const result = await runPreflight(gateway, [SYMBOL]);
    expect(result.ok).toBe(false);
    expect(result.failure).toEqual({
      code: 'EXCHANGE_POSITION_MODE',
      message:
        "The binanceusdm account is in hedge mode and refused to switch to one-way mode: switch the account to one-way mode in binanceusdm's futures settings " +
        '(Preferences > Position Mode; close its open positions and orders first), then restart the deployment',
      transient: false,
    });
    expect(result.checks.at(-1)).toMatchObject({ name: 'position_mode', ok: false });
    expect(orderPosts()).toHaveLength(0);
  });

  it('refuses a clock it cannot correct with EXCHANGE_CLOCK_SKEW', async () => {
    fake.account.clockSkewMs = 2000;
    const { syncClock: _, ...uncorrectable } = gateway;
    const result = await runPreflight(uncorrectable, [SYMBOL]);
    expect(result.failure?.code).toBe('EXCHANGE_CLOCK_SKEW');
    expect(result.failure?.message).toMatch(
      /^This server's clock is \d+ ms behind binanceusdm's \(at most 1000 ms is allowed\): synchronise the server clock \(NTP\)/,
    );
    expect(result.checks).toHaveLength(1);
  });

  it('sets leverage and margin mode as configured, again without error', async () => {
    for (let run = 0; run < 2; run++) {
      const result = await runPreflight(gateway, [SYMBOL], { leverage: 3, marginMode: 'isolated' });
      expect(result.failure).toBeNull();
      expect(result.checks.at(-1)).toEqual({ name: 'leverage', ok: true, message: 'Set margin mode isolated and leverage 3x on BTC/USDT:USDT' });
    }
    expect(fake.account.leverage).toEqual({ BTCUSDT: 3 });
    expect(fake.account.marginType).toEqual({ BTCUSDT: 'ISOLATED' });
  });

  it('a refused key fails the credential check with EXCHANGE_AUTHENTICATION, and no body shows', async () => {
    fake.account.rejectSignedRequests = true;
    fake.account.rejectSignedBody = (key) => ({ code: -2015, msg: `bad key ${key}` });
    const result = await runPreflight(gateway, [SYMBOL]);
    expect(result.failure?.code).toBe('EXCHANGE_AUTHENTICATION');
    expect(JSON.stringify(result)).not.toMatch(/bad key|-2015|test-api-key/);
  });

  it('refuses symbols the exchange does not list, and a mix of market types', async () => {
    expect((await runPreflight(gateway, ['ETH/USDT:USDT'])).failure?.code).toBe('EXCHANGE_SYMBOL');
    const mixed = await runPreflight(gateway, [SYMBOL, 'BTC/USDT']);
    expect(mixed.failure?.message).toMatch(/^The symbols mix perpetuals/);
  });
});

describe('runPreflight on the paper exchange', () => {
  it('passes, with nothing to set up', async () => {
    const paper = createPaperGateway({ prices: () => 100, fees: { maker: 0, taker: 0 }, initialBalance: 1000 });
    const result = await runPreflight(paper, [SYMBOL]);
    expect(result.failure).toBeNull();
    expect(result.clockOffsetMs).toBeNull();
    expect(result.checks.map((c) => c.name)).toEqual(['clock', 'credential', 'symbols', 'limits', 'position_mode', 'leverage']);
  });
});

describe('symbolsMarketType', () => {
  it('reads the market type from the symbols', () => {
    expect(symbolsMarketType(['BTC/USDT:USDT', 'ETH/USDT:USDT'])).toBe('LINEAR');
    expect(symbolsMarketType(['BTC/USDT'])).toBe('SPOT');
    expect(symbolsMarketType(['BTC/USDT', 'BTC/USDT:USDT'])).toBeNull();
  });
});

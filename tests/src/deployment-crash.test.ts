import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createStratboxClient, type StratboxClient } from '@stratbox/client';
import { createKyselyStore } from '@stratbox/store-kysely';
import { deferred, sleep, waitFor } from './harness/deferred.js';
import { FAKE_BINANCE_API_KEY, FAKE_BINANCE_SECRET, startFakeBinance, type FakeBinance } from '@stratbox/core/testing';
import { createUserWithCli, fastDeploymentEnv, startServerProcess, tempDataDir, type ServerProcess } from './harness/server-process.js';

/*
 * Crash safety of live orders, end to end: the example server runs a deployment against a local
 * Binance USDT-M stand-in (the real ccxt binanceusdm class, its API moved by
 * STRATBOX_EXCHANGE_URLS). The exchange records the strategy's first order but never answers;
 * the server is killed with SIGKILL while that order is in flight. Started again on the same
 * data, it must resume the deployment, find the order on the exchange by its client order id,
 * record its fill once and tell the strategy, and never send it a second time.
 */

const SYMBOL = 'BTC/USDT:USDT';
const SOURCE = `
export const meta = { timeframe: '1m' };
export function onCandle(ctx, candle) {
  if (!ctx.position(candle.symbol) && ctx.orders(candle.symbol).length === 0) ctx.buy(candle.symbol, { quantity: 0.01 });
}
export function onOrder(ctx, order) {
  ctx.log('onOrder', order.status, order.side, order.quantity);
}
`;

describe('a deployment survives SIGKILL with an order in flight', () => {
  const data = tempDataDir();
  let fake: FakeBinance;
  let server: ServerProcess | undefined;

  afterAll(async () => {
    await server?.stop('SIGKILL');
    await fake?.close();
    data.remove();
  });

  it('finds exactly one order on the exchange, recorded once, and the deployment running', async () => {
    fake = await startFakeBinance();
    fake.orderFaults.push('hang');
    const posted = deferred<void>();
    fake.onOrderPost = () => posted.resolve();
    const env = {
      ...fastDeploymentEnv(data.dir),
      STRATBOX_EXCHANGE_URLS: JSON.stringify({ binanceusdm: fake.url }),
    };
    server = await startServerProcess(env);
    const { apiKey } = await createUserWithCli('alice', env);
    let client: StratboxClient = createStratboxClient({ baseUrl: server.baseUrl, apiKey });
    const credentialId = (
      await client.credentials.create({ body: { exchange: 'binanceusdm', label: 'fake', apiKey: FAKE_BINANCE_API_KEY, secret: FAKE_BINANCE_SECRET } })
    ).id;
    const strategyId = (await client.strategies.create({ body: { name: 'buy once', source: SOURCE } })).id;
    const deployment = await client.deployments.create({ body: { strategyId, credentialId, symbols: [SYMBOL], params: {} } });

    await Promise.race([posted.promise, sleep(40_000).then(() => Promise.reject(new Error('no order reached the exchange')))]);
    await server.stop('SIGKILL');
    server = undefined;
    const orderPosts = () => fake.calls.filter((c) => c.method === 'POST' && c.path === '/fapi/v1/order');
    expect(orderPosts()).toHaveLength(1);
    const [onExchange] = [...fake.orders.values()];
    expect(onExchange).toMatchObject({ status: 'FILLED', side: 'BUY', origQty: '0.01' });

    server = await startServerProcess(env);
    client = createStratboxClient({ baseUrl: server.baseUrl, apiKey });
    const logs = await waitFor('the resumed deployment to tell the strategy about the fill', async () => {
      const lines = await client.deployments.logs({ params: { id: deployment.id }, query: { limit: 1000 } });
      // The fill reaches the strategy while the runner resumes; the resume's own line comes when it is done.
      const told = lines.some((l) => l.message.startsWith('onOrder filled buy 0.01'));
      return told && lines.some((l) => l.message.startsWith('Deployment resumed after a restart')) ? lines : null;
    });
    const messages = logs.map((l) => l.message);
    expect(messages.some((m) => m.startsWith('Deployment resumed after a restart (1 open order(s) reconciled)'))).toBe(true);
    expect(messages.some((m) => /^Reconciled buy 0\.01 BTC\/USDT:USDT market \(ord_[\w-]+\): pending -> filled/.test(m))).toBe(true);
    expect((await client.deployments.get({ params: { id: deployment.id } })).status).toBe('running');

    // Several more candles: the strategy holds its position, nothing is sent again.
    await sleep(3000);
    expect(orderPosts()).toHaveLength(1);
    expect(fake.orders.size).toBe(1);
    expect((await client.deployments.get({ params: { id: deployment.id } })).status).toBe('running');

    await server.stop('SIGTERM');
    server = undefined;
    const store = await createKyselyStore({ dialect: 'sqlite', filename: join(data.dir, 'stratbox.sqlite') });
    try {
      const userId = (await store.deployments.listByStatus(['running'], 10)).find((d) => d.id === deployment.id)!.userId;
      const recorded = await store.orders.listByDeployment(userId, deployment.id, { limit: 100 });
      expect(recorded).toHaveLength(1);
      expect(recorded[0]).toMatchObject({
        clientOrderId: onExchange!.clientOrderId,
        exchangeOrderId: String(onExchange!.orderId),
        status: 'filled',
        filledQuantity: 0.01,
      });
    } finally {
      await store.close();
    }
  }, 120_000);
});

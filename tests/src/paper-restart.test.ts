import { afterAll, describe, expect, it } from 'vitest';
import { createStratboxClient, type StratboxClient } from '@stratbox/client';
import { sleep, waitFor } from './harness/deferred.js';
import { createUserWithCli, fastDeploymentEnv, startServerProcess, tempDataDir, type ServerProcess } from './harness/server-process.js';

/*
 * A paper account outlives the process: the example server runs a deployment on the built-in
 * paper exchange, buys once, and is killed with SIGKILL. Started again on the same data, the
 * deployment resumes with its paper position still there: the strategy does not buy again, and
 * stopping it closes that one position.
 */

const SYMBOL = 'BTC/USDT:USDT';
const SOURCE = `
export const meta = { timeframe: '1m' };
export function onCandle(ctx, candle) {
  if (!ctx.position(candle.symbol) && ctx.orders(candle.symbol).length === 0) ctx.buy(candle.symbol, { quantity: 0.01 });
}
`;

describe('a paper account across a server restart', () => {
  const data = tempDataDir();
  let server: ServerProcess | undefined;

  afterAll(async () => {
    await server?.stop('SIGKILL');
    data.remove();
  });

  it('keeps the position of a deployment that was killed: no second entry, and stop closes it', async () => {
    const env = fastDeploymentEnv(data.dir);
    server = await startServerProcess(env);
    const { apiKey } = await createUserWithCli('alice', env);
    let client: StratboxClient = createStratboxClient({ baseUrl: server.baseUrl, apiKey });
    const credentialId = (await client.credentials.create({ body: { exchange: 'paper', label: 'paper', apiKey: 'paper-key', secret: 'paper-secret' } })).id;
    const strategyId = (await client.strategies.create({ body: { name: 'buy once', source: SOURCE } })).id;
    const deployment = await client.deployments.create({ body: { strategyId, credentialId, symbols: [SYMBOL], params: {} } });
    const messages = async () => (await client.deployments.logs({ params: { id: deployment.id }, query: { limit: 1000 } })).map((l) => l.message);
    await waitFor('the entry to fill', async () => (await messages()).some((m) => m.startsWith('Order filled')));

    await server.stop('SIGKILL');
    server = await startServerProcess(env);
    client = createStratboxClient({ baseUrl: server.baseUrl, apiKey });
    await waitFor('the deployment to resume', async () => (await messages()).some((m) => m.startsWith('Deployment resumed after a restart')));
    // Several more candles: the strategy sees its position and does not buy again.
    await sleep(3000);
    expect((await messages()).filter((m) => m.startsWith('Order placed: buy'))).toHaveLength(1);

    const stopped = await client.deployments.stop({ params: { id: deployment.id } });
    expect(stopped.status).toBe('stopped');
    const after = await messages();
    expect(after[after.length - 1]).toMatch(/^Deployment stopped \(1 position\(s\) closed\)/);
  }, 120_000);
});

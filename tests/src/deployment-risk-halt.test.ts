import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createSilentLogger, createStratbox, generateMasterKey, type Clock, type Stratbox } from '@stratbox/core';
import { createKyselyStore } from '@stratbox/store-kysely';
import { createStratboxClient, type StratboxClient } from '@stratbox/client';
import { createApp } from '@stratbox/example-server/create-app';
import { tempDataDir } from './harness/server-process.js';

/*
 * Done means (issue #24): a paper deployment whose strategy loses money breaches `maxDrawdown`.
 * It is `halted` with its position closed, the breach is recorded once, and it stays halted after
 * a restart of the service. Over real HTTP (the example server's app, the typed client), on
 * SQLite, with real sandbox child processes and the built-in paper exchange on synthetic candles,
 * the clock 400 times faster than real time (a '1m' candle every 150 ms).
 *
 * The loser pays the taker fee twice a candle on 90 % of its equity (close, then buy again), so
 * its equity falls by about 0.09 % a candle whatever the market does, and always holds a position
 * when the guard reads the account. A second deployment, with no limits, only logs its candles:
 * after the restart it shows that the service resumed what it should and ran for several candles.
 */

const SYMBOL = 'BTC/USDT:USDT';
const LOSER = `
export const meta = { timeframe: '1m' };
export function onCandle(ctx, c) {
  if (ctx.position(c.symbol)) ctx.close(c.symbol);
  ctx.buy(c.symbol, { size: 0.9, tag: 'churn' });
}
`;
const TICKER = `
export const meta = { timeframe: '1m' };
export function onCandle(ctx, c) {
  ctx.log('tick', c.time);
}
`;

/** A clock `factor` times faster than real time, starting at `from` (so a restarted service does not go back in time). */
function fastClock(factor: number, from = Date.now()): Clock {
  const start = Date.now();
  let last = 0;
  return {
    now() {
      last = Math.max(last, from + (Date.now() - start) * factor);
      return new Date(last);
    },
  };
}

/** One master key for both lives of the service, so the paper credentials open after the restart. */
const MASTER_KEY = generateMasterKey();

interface Service {
  stratbox: Stratbox;
  clock: Clock;
  baseUrl: string;
  close(): Promise<void>;
}

/** The example service's app on a SQLite file, in this process; `close` ends it as a shutdown would (the file stays). */
async function startService(filename: string, clock: Clock): Promise<Service> {
  const store = await createKyselyStore({ dialect: 'sqlite', filename });
  const stratbox = createStratbox({
    store,
    clock,
    masterKey: MASTER_KEY,
    logger: createSilentLogger(),
    deployments: { pollIntervalMs: 40, scanIntervalMs: 200 },
    billing: { plans: { free: { limits: { deployments: 2 } } } },
  });
  await stratbox.start();
  const server: Server = createServer(createApp(stratbox, { logRequests: false }));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    stratbox,
    clock,
    baseUrl: `http://127.0.0.1:${port}`,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await stratbox.close();
    },
  };
}

describe('a paper deployment that breaches maxDrawdown', () => {
  const data = tempDataDir();
  const filename = join(data.dir, 'stratbox.sqlite');
  let service: Service | undefined;

  afterAll(async () => {
    await service?.close();
    data.remove();
  });

  it('is halted with its position closed, the breach recorded once, and stays halted after a restart of the service', async () => {
    service = await startService(filename, fastClock(400));
    const { apiKey } = await service.stratbox.users.createUser('alice');
    let client: StratboxClient = createStratboxClient({ baseUrl: service.baseUrl, apiKey });
    const paper = async (label: string) => (await client.credentials.create({ body: { exchange: 'paper', label } })).id;
    const loserId = (await client.strategies.create({ body: { name: 'fee payer', source: LOSER } })).id;
    const tickerId = (await client.strategies.create({ body: { name: 'ticker', source: TICKER } })).id;

    const created = await client.deployments.create({
      body: { strategyId: loserId, credentialId: await paper('loser'), symbols: [SYMBOL], risk: { maxDrawdown: 0.01 } },
    });
    expect(created.risk).toEqual({ maxDrawdown: 0.01, onBreach: 'close' });
    const control = await client.deployments.create({ body: { strategyId: tickerId, credentialId: await paper('control'), symbols: [SYMBOL] } });
    const id = created.id;
    const messages = async (deploymentId: string) =>
      (await client.deployments.logs({ params: { id: deploymentId }, query: { limit: 1000 } })).map((l) => l.message);

    await expect.poll(async () => (await client.deployments.get({ params: { id } })).status, { timeout: 90_000 }).toBe('halted');
    const halted = await client.deployments.get({ params: { id } });
    expect(halted.halt).not.toBeNull();
    const halt = halted.halt!;
    expect(halt.reason).toBe('maxDrawdown');
    expect(halt.limit).toBe(0.01);
    expect(halt.value).toBeGreaterThan(halt.limit!);
    expect(halt.message).toMatch(/^Equity [\d,]+\.\d\d USDT is \d+\.\d % below its peak [\d,]+\.\d\d USDT; maxDrawdown is 1 %$/);

    // Its position was closed with a reduce-only market order, and nothing is left open.
    await expect.poll(async () => (await messages(id)).some((m) => m.startsWith('Deployment halted ('))).toBe(true);
    const log = await messages(id);
    expect(log.filter((m) => m.startsWith('Risk limit breached'))).toEqual([
      `Risk limit breached (maxDrawdown): ${halt.message}. Halted: cancelling its orders and closing its positions`,
    ]);
    expect(log.find((m) => m.startsWith('Deployment halted ('))).toMatch(/^Deployment halted \(0 order\(s\) cancelled, 1 position\(s\) closed\)/);
    expect((await client.deployments.positions({ params: { id } })).positions).toEqual([]);
    const orders = (await client.deployments.orders({ params: { id }, query: { limit: 100 } })).orders;
    expect(orders.filter((o) => o.status !== 'filled')).toEqual([]);
    expect(orders.length).toBeGreaterThan(2);

    // The service restarts on the same SQLite file (its clock carries on from where it was).
    const at = service.clock.now().getTime();
    await service.close();
    service = await startService(filename, fastClock(400, at));
    client = createStratboxClient({ baseUrl: service.baseUrl, apiKey });
    // The deployment with no limits is resumed and sees three more candles: the service resumed what it should, and ran.
    await expect.poll(async () => (await messages(control.id)).some((m) => m.startsWith('Deployment resumed after a restart')), { timeout: 60_000 }).toBe(true);
    await expect
      .poll(
        async () => {
          const lines = await messages(control.id);
          const resumed = lines.findIndex((m) => m.startsWith('Deployment resumed after a restart'));
          return lines.slice(resumed).filter((m) => m.startsWith('tick')).length;
        },
        { timeout: 60_000 },
      )
      .toBeGreaterThanOrEqual(3);

    const after = await client.deployments.get({ params: { id } });
    expect(after.status).toBe('halted');
    expect(after.halt).toEqual(halt);
    expect((await client.deployments.orders({ params: { id }, query: { limit: 100 } })).orders).toEqual(orders);
    expect(await messages(id)).toEqual(log);
    expect((await client.deployments.positions({ params: { id } })).positions).toEqual([]);

    // No process holds it now; stop still works from halted.
    const stopped = await client.deployments.stop({ params: { id } });
    expect(stopped.status).toBe('stopped');
    expect((await messages(id)).at(-1)).toMatch(/^Deployment stopped \(0 position\(s\) closed\)/);
  }, 240_000);
});

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
const DAY_MS = 86_400_000;
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

/**
 * Makes one round trip, then stays flat: its equity moves away from its first reading once (the
 * fees, and the market's move while it held) and then stays put. It decides from the account, so
 * the fresh instance a restart makes does not trade again.
 */
const ONE_ROUND_TRIP = `
export const meta = { timeframe: '1m' };
export function onCandle(ctx, c) {
  ctx.log('candle');
  if (ctx.position(c.symbol)) ctx.close(c.symbol);
  else if (ctx.cash() === 10000) ctx.buy(c.symbol, { size: 0.9 }); // untouched: no trade yet
}
`;

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

describe('the peak of a deployment resumed after a restart of the service', () => {
  const data = tempDataDir();
  const filename = join(data.dir, 'stratbox.sqlite');
  let service: Service | undefined;

  afterAll(async () => {
    await service?.close();
    data.remove();
  });

  it('is the one it had before the restart, not its equity when it resumed', async () => {
    // One in the morning (UTC) of today: the test's half hour of clock time stays within one UTC day.
    service = await startService(filename, fastClock(400, Math.floor(Date.now() / DAY_MS) * DAY_MS + 3_600_000));
    const { apiKey, userId } = await service.stratbox.users.createUser('bob');
    let client: StratboxClient = createStratboxClient({ baseUrl: service.baseUrl, apiKey });
    const credentialId = (await client.credentials.create({ body: { exchange: 'paper', label: 'paper' } })).id;
    const strategyId = (await client.strategies.create({ body: { name: 'one round trip', source: ONE_ROUND_TRIP } })).id;
    const { id } = await client.deployments.create({
      body: { strategyId, credentialId, symbols: [SYMBOL], risk: { maxDrawdown: 0.5, dailyLossLimit: 0.5 } },
    });
    const record = async () => (await service!.stratbox.store.deployments.findById(userId, id))!;
    const messages = async () => (await client.deployments.logs({ params: { id }, query: { limit: 1000 } })).map((l) => l.message);
    // The round trip is done: the equity stays where it is from now on.
    await expect.poll(async () => (await messages()).filter((m) => m.startsWith('Order filled')).length, { timeout: 60_000 }).toBe(2);
    const kept = (await record()).riskState!;
    // The first reading, before any trade, started the day (and the peak, which the open position may have raised).
    expect(kept.dayStartEquity).toBe(10_000);
    expect(kept.peakEquity).toBeGreaterThanOrEqual(10_000);
    const balance = async () => {
      const credential = await service!.stratbox.credentials.openSecrets(userId, credentialId);
      const gateway = await service!.stratbox.exchanges.acquire(credential, 'LINEAR');
      try {
        return (await gateway.fetchBalance()).USDT!.total;
      } finally {
        service!.stratbox.exchanges.release(credentialId);
      }
    };
    const equity = await balance();
    // Fees paid (and the market's move while it held the position): a guard started now would start its day and peak here.
    expect(equity).not.toBe(10_000);

    const at = service.clock.now().getTime();
    await service.close();
    service = await startService(filename, fastClock(400, at));
    client = createStratboxClient({ baseUrl: service.baseUrl, apiKey });
    await expect.poll(async () => (await messages()).some((m) => m.startsWith('Deployment resumed after a restart')), { timeout: 60_000 }).toBe(true);
    // Its guard has read the account since (at resume, and at every poll and candle): the peak is still the one kept,
    // where a guard started afresh would have started its day and peak at the equity it found.
    await expect
      .poll(
        async () => {
          const lines = await messages();
          return lines.slice(lines.findIndex((m) => m.startsWith('Deployment resumed after a restart'))).filter((m) => m === 'candle').length;
        },
        { timeout: 60_000 },
      )
      .toBeGreaterThanOrEqual(3);
    expect(await balance()).toBe(equity);
    expect((await record()).riskState).toEqual(kept);
    expect((await messages()).filter((m) => m.startsWith('Order filled'))).toHaveLength(2);
    expect((await client.deployments.get({ params: { id } })).status).toBe('running');
  }, 240_000);
});

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStratboxClient, type StratboxClient } from '@stratbox/client';
import { createUserWithCli, runCli, startServerProcess, tempDataDir, type ServerProcess } from './harness/server-process.js';
import { waitFinished } from './harness/wait-backtest.js';

/*
 * `stratbox import-csv <symbol> --funding <file>`, run as the real bin next to a running example
 * server on the same DATA_DIR: the imported funding rates are what a LINEAR backtest then pays
 * (its `fundingSource` is `csv`), read back over HTTP as a user would.
 */

const EIGHT_HOURS = 8 * 3_600_000;
const HOLD = `export const meta = { timeframe: '1h' };
export function onCandle(ctx, c) { if (!ctx.position(c.symbol)) ctx.buy(c.symbol, { size: 0.3 }); }`;

describe('stratbox import-csv --funding', () => {
  const data = tempDataDir();
  const env = { DATA_DIR: data.dir };
  let server: ServerProcess;
  let client: StratboxClient;

  beforeAll(async () => {
    const { apiKey } = await createUserWithCli('fundy', env); // also migrates the schema
    server = await startServerProcess(env);
    client = createStratboxClient({ baseUrl: server.baseUrl, apiKey });
  }, 60_000);
  afterAll(async () => {
    await server?.stop('SIGKILL');
    data.remove();
  });

  it('documents --funding in its help', async () => {
    const help = await runCli(['import-csv', '--help'], env);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('--funding <file>');
    expect(help.stdout).toContain('stratbox import-csv BTC/USDT:USDT --funding ./BTCUSDT-fundingRate-2024-01.csv');
  }, 60_000);

  it("imports Binance's fundingRate file, and a LINEAR backtest then pays those rates", async () => {
    const file = join(data.dir, 'BTCUSDT-fundingRate-2025-01.csv');
    const rows = ['calc_time,funding_interval_hours,last_funding_rate'];
    for (let t = Date.parse('2025-01-01T00:00:00Z'); t < Date.parse('2025-02-01T00:00:00Z'); t += EIGHT_HOURS) rows.push(`${t + 3},8,0.00010000`);
    writeFileSync(file, rows.join('\n') + '\n');

    const result = await runCli(['import-csv', 'BTC/USDT:USDT', '--funding', file, '--json'], env);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ imported: 93, firstTime: '2025-01-01T00:00:00.003Z', lastTime: '2025-01-31T16:00:00.003Z' });

    const table = await runCli(['import-csv', 'BTC/USDT:USDT', '--funding', file], env);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toMatch(/^imported\s+93 funding rates$/m);

    const strategyId = (await client.strategies.create({ body: { name: 'Hold', source: HOLD } })).id;
    const created = await client.backtests.create({ body: { strategyId, symbols: ['BTC/USDT:USDT'], startDate: '2025-01-10', endDate: '2025-01-12' } });
    const done = await waitFinished(client, created.id, 90_000);
    expect(done.status, JSON.stringify(done.error)).toBe('completed');
    expect(done).toMatchObject({ funding: true, fundingSource: 'csv', dataSource: 'synthetic' });
    expect(done.metrics!.fundingPaid).toBeGreaterThan(0); // a long pays the imported +0.01 %
  }, 120_000);

  it('names the bad line and imports nothing; refuses a timeframe or file beside --funding', async () => {
    const file = join(data.dir, 'bad-funding.csv');
    writeFileSync(file, 'time,rate\n2025-03-01T00:00:00Z,0.0001\n2025-03-01T08:00:00Z,12\n');
    const bad = await runCli(['import-csv', 'ETH/USDT:USDT', '--funding', file], env);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toBe('');
    expect(bad.stderr).toContain('line 3: rate 12 is not a fraction from -1 to 1');

    const both = await runCli(['import-csv', 'ETH/USDT:USDT', '1h', file, '--funding', file], env);
    expect(both.code).toBe(1);
    expect(both.stderr).toContain('With --funding <file>, give only the symbol');
    const neither = await runCli(['import-csv', 'ETH/USDT:USDT'], env);
    expect(neither.code).toBe(1);
    expect(neither.stderr).toContain('Give <timeframe> <file> to import candles, or --funding <file>');
  }, 60_000);
});

import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeBinanceKline, startFakeBinance, type FakeBinance } from '@stratbox/core/testing';
import { REPO_ROOT } from './harness/paths.js';
import { createUserWithCli, runCli, startServerProcess, tempDataDir, type ServerProcess } from './harness/server-process.js';

/*
 * The `stratbox` command of the example server, run as its real bin in a child process, next to
 * a running example server on the same DATA_DIR (imports and downloads are read back over HTTP)
 * and a local fake Binance reached by the real ccxt client (STRATBOX_EXCHANGE_URLS).
 */

const HOUR = 3_600_000;
const T0 = Date.parse('2024-01-01T00:00:00.000Z');

describe('the stratbox CLI', () => {
  const data = tempDataDir();
  const env = { DATA_DIR: data.dir };
  let server: ServerProcess;
  let apiKey: string;

  beforeAll(async () => {
    apiKey = (await createUserWithCli('alice', env)).apiKey; // also migrates the schema
    server = await startServerProcess(env);
  }, 60_000);
  afterAll(async () => {
    await server?.stop('SIGKILL');
    data.remove();
  });

  async function candles(symbol: string, startDate: string, endDate: string) {
    const query = new URLSearchParams({ symbol, timeframe: '1h', startDate, endDate });
    const response = await fetch(`${server.baseUrl}/api/market-data/candles?${query}`, { headers: { authorization: `Bearer ${apiKey}` } });
    expect(response.status).toBe(200);
    return (await response.json()) as {
      source: string;
      candles: Array<{ time: string; open: number; high: number; low: number; close: number; volume: number }>;
    };
  }

  it('create-user prints only JSON on stdout, also through `pnpm cli` (no pnpm banner)', async () => {
    const direct = await runCli(['create-user', 'bob'], env);
    expect(direct.code).toBe(0);
    expect(JSON.parse(direct.stdout)).toEqual({ userId: expect.stringMatching(/^usr_/), apiKey: expect.stringMatching(/^sbx_/) });

    const viaPnpm = await new Promise<{ code: number | null; stdout: string }>((resolve, reject) => {
      const child = spawn('npx', ['-y', 'pnpm@10', 'cli', 'create-user', 'carol'], {
        cwd: REPO_ROOT,
        env: { ...process.env, ...env },
        stdio: ['ignore', 'pipe', 'ignore'],
      });
      let stdout = '';
      child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
      child.once('error', reject);
      child.once('exit', (code) => resolve({ code, stdout }));
    });
    expect(viaPnpm.code).toBe(0);
    expect(JSON.parse(viaPnpm.stdout)).toEqual({ userId: expect.stringMatching(/^usr_/), apiKey: expect.stringMatching(/^sbx_/) });
  }, 120_000);

  it('every command has --help', async () => {
    for (const command of ['create-user', 'import-csv', 'download', 'backtest']) {
      const help = await runCli([command, '--help'], env);
      expect(help.code).toBe(0);
      expect(help.stdout).toContain(`Usage: stratbox ${command}`);
    }
  }, 60_000);

  it('import-csv places columns by a reordered header with quoted fields', async () => {
    const file = join(data.dir, 'sol.csv');
    const rows = ['"Volume","Close","note","Low","High","Timestamp","Open"'];
    for (let i = 0; i < 24; i++)
      rows.push(`${10 + i},"${100.5 + i}","row ${i}, ""quoted""",${99 + i},${101 + i},${new Date(T0 + i * HOUR).toISOString()},${100 + i}`);
    writeFileSync(file, rows.join('\r\n') + '\r\n');

    const result = await runCli(['import-csv', 'SOL/USDT:USDT', '1h', file, '--json'], env);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ imported: 24, firstTime: '2024-01-01T00:00:00.000Z', lastTime: '2024-01-01T23:00:00.000Z' });

    const served = await candles('SOL/USDT:USDT', '2024-01-01', '2024-01-01');
    expect(served.source).toBe('csv');
    expect(served.candles).toHaveLength(24);
    expect(served.candles[5]).toEqual({ time: new Date(T0 + 5 * HOUR).toISOString(), open: 105, high: 106, low: 104, close: 105.5, volume: 15 });
  }, 60_000);

  it("import-csv reads Binance's 12-column kline file, and prints a table by default", async () => {
    const file = join(data.dir, 'XRPUSDT-1h-2024-01-01.csv');
    // data.binance.vision's layout, without a header, open times in microseconds (as its spot files since 2025)
    const rows = Array.from({ length: 24 }, (_, i) =>
      fakeBinanceKline(T0 + i * HOUR)
        .map((v, k) => (k === 0 ? Number(v) * 1000 : v))
        .join(','),
    );
    writeFileSync(file, rows.join('\n') + '\n');

    const result = await runCli(['import-csv', 'XRP/USDT:USDT', '1h', file], env);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^imported\s+24 candles$/m);

    const served = await candles('XRP/USDT:USDT', '2024-01-01', '2024-01-01');
    expect(served.source).toBe('csv');
    const [t, o, h, l, c, v] = fakeBinanceKline(T0 + 7 * HOUR).map(Number);
    expect(served.candles[7]).toEqual({ time: new Date(t!).toISOString(), open: o, high: h, low: l, close: c, volume: v });
  }, 60_000);

  it('import-csv names the bad line and imports nothing', async () => {
    const file = join(data.dir, 'bad.csv');
    writeFileSync(file, `time,open,high,low,close,volume\n${T0},1,2,0.5,1.5,3\n${T0 + HOUR},1,0.5,2,1.5,3\n`);
    const result = await runCli(['import-csv', 'ADA/USDT:USDT', '1h', file], env);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('line 3: high 0.5 is below low 2');
  }, 60_000);

  describe('download', () => {
    let fake: FakeBinance;
    beforeAll(async () => {
      fake = await startFakeBinance();
    });
    afterAll(() => fake?.close());

    const klineCalls = () => fake.calls.filter((call) => call.path === '/fapi/v1/klines').length;
    const args = ['download', 'BTC/USDT:USDT', '1h', '2024-01-01', '2024-01-03', '--exchange', 'binanceusdm', '--json'];

    it('downloads through real ccxt with progress, and again fetches nothing new', async () => {
      const downloadEnv = { ...env, STRATBOX_EXCHANGE_URLS: JSON.stringify({ binanceusdm: fake.url }) };
      const first = await runCli(args, downloadEnv);
      expect(first.code, first.stderr).toBe(0);
      expect(JSON.parse(first.stdout)).toEqual({ source: 'ccxt:binanceusdm', days: 3, cachedDays: 0, downloadedDays: 3, candles: 72 });
      expect(first.stderr).toContain('download BTC/USDT:USDT 1h: 100% (3/3 days)');
      expect(klineCalls()).toBeGreaterThan(0);

      const before = klineCalls();
      const again = await runCli(args, downloadEnv);
      expect(again.code, again.stderr).toBe(0);
      expect(JSON.parse(again.stdout)).toEqual({ source: 'ccxt:binanceusdm', days: 3, cachedDays: 3, downloadedDays: 0, candles: 72 });
      expect(klineCalls()).toBe(before);

      // the service reads what was downloaded, without an exchange of its own
      const served = await candles('BTC/USDT:USDT', '2024-01-01', '2024-01-03');
      expect(served.source).toBe('ccxt:binanceusdm');
      expect(served.candles).toHaveLength(72);
      const [t, o, h, l, c, v] = fakeBinanceKline(T0 + 50 * HOUR).map(Number);
      expect(served.candles[50]).toEqual({ time: new Date(t!).toISOString(), open: o, high: h, low: l, close: c, volume: v });

      // one more day: only that day is asked of the exchange
      const longer = await runCli([...args.slice(0, 4), '2024-01-04', ...args.slice(5)], downloadEnv);
      expect(JSON.parse(longer.stdout)).toMatchObject({ days: 4, cachedDays: 3, downloadedDays: 1, candles: 96 });
      const asked = fake.calls.slice(-1)[0]!;
      expect(new Date(Number(asked.params['startTime'])).toISOString()).toBe('2024-01-04T00:00:00.000Z');
    }, 120_000);
  });

  describe('backtest against the running server', () => {
    // warm-up candles before the start: the engine is handed more candles than the run trades
    const strategy = `export const meta = { timeframe: '1h', warmup: 31, params: { fast: { type: 'number', default: 10 } } };
export function onCandle(ctx, c) {
  const f = ctx.indicators.sma(c.symbol, ctx.params.fast), s = ctx.indicators.sma(c.symbol, 30);
  if (f > s && !ctx.position(c.symbol)) ctx.buy(c.symbol, { size: 0.5 });
  else if (f < s && ctx.position(c.symbol)) ctx.close(c.symbol);
}
`;
    const backtestArgs = (file: string) => [
      'backtest',
      file,
      '--url',
      server.baseUrl,
      '--symbols',
      'BTC/USDT:USDT',
      'ETH/USDT:USDT',
      '--from',
      '2024-01-01',
      '--to',
      '2024-03-31',
      '--param',
      'fast=8',
    ];

    it('creates the strategy, shows progress from the WebSocket channel and prints a metrics table', async () => {
      const file = join(data.dir, 'sma-cross.js');
      writeFileSync(file, strategy);
      const result = await runCli(backtestArgs(file), { ...env, STRATBOX_API_KEY: apiKey });
      expect(result.code, result.stderr).toBe(0);
      expect(result.stderr).toMatch(/strategy sma-cross \(str_[\w-]+\) created version 1/);
      expect(result.stderr).toMatch(/backtest bt_[\w-]+: 100% \(\d+\/\d+ bars\)/);
      // one total from the first line to the last (the traded bars, warm-up aside), ending on it
      const lines = [...result.stderr.matchAll(/: \d+% \((\d+)\/(\d+) bars\)/g)].map((m) => ({ done: Number(m[1]), total: Number(m[2]) }));
      expect(lines.length).toBeGreaterThan(1);
      expect(new Set(lines.map((l) => l.total))).toEqual(new Set([91 * 24 * 2]));
      expect(lines.at(-1)!.done).toBe(91 * 24 * 2);
      expect(result.stdout).toMatch(/^strategy\s+sma-cross v1$/m);
      expect(result.stdout).toMatch(/^metric\s+all\s+BTC\/USDT:USDT\s+ETH\/USDT:USDT$/m);
      for (const row of ['total return', 'max drawdown', 'Sharpe', 'win rate', 'trades']) expect(result.stdout).toMatch(new RegExp(`^${row}\\s+\\S+`, 'm'));
    }, 120_000);

    it('updates the strategy of the same name and prints the result as JSON with --json', async () => {
      const file = join(data.dir, 'sma-cross.js');
      writeFileSync(file, strategy.replace('sma(c.symbol, 30)', 'sma(c.symbol, 40)'));
      const result = await runCli([...backtestArgs(file), '--api-key', apiKey, '--json', '--no-progress'], env);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stderr).toMatch(/strategy sma-cross \(str_[\w-]+\) at version 2/);
      expect(result.stderr).not.toContain('%');
      const detail = JSON.parse(result.stdout) as {
        status: string;
        strategyVersion: number;
        params: Record<string, unknown>;
        metrics: { tradeCount: number; perSymbol: Record<string, unknown> };
      };
      expect(detail).toMatchObject({ status: 'completed', strategyVersion: 2, symbols: ['BTC/USDT:USDT', 'ETH/USDT:USDT'] });
      expect(Object.keys(detail.metrics.perSymbol).sort()).toEqual(['BTC/USDT:USDT', 'ETH/USDT:USDT']);

      const list = await fetch(`${server.baseUrl}/api/strategies`, { headers: { authorization: `Bearer ${apiKey}` } });
      expect(((await list.json()) as { strategies: unknown[] }).strategies).toHaveLength(1);
    }, 120_000);

    it('refuses a backtest without an API key, naming the option', async () => {
      const result = await runCli(['backtest', join(data.dir, 'sma-cross.js'), '--url', server.baseUrl], env);
      expect(result.code).not.toBe(0);
      expect(result.stderr).toContain('--api-key');
    }, 60_000);
  });
});

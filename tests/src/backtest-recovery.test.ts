import { afterAll, describe, expect, it } from 'vitest';
import { createStratboxClient } from '@stratbox/client';
import { createUserWithCli, startServerProcess, tempDataDir, type ServerProcess } from './harness/server-process.js';

describe('a server restart never leaves a backtest stuck in running', () => {
  const data = tempDataDir();
  // A CPU budget well above the busy run's (about 30 s of CPU on a loaded machine): this test is about recovery, not the budget.
  const env = { DATA_DIR: data.dir, STRATBOX_BACKTEST_CPU_MS: '180000' };
  let server: ServerProcess | undefined;
  afterAll(async () => {
    await server?.stop('SIGKILL');
    data.remove();
  });

  // Heavy on purpose (a busy half-year run): generous limits for a loaded machine.
  it('re-queues the runs a crash interrupted and completes them after the restart', { timeout: 300_000 }, async () => {
    server = await startServerProcess(env);
    const user = await createUserWithCli('ops', env);
    let client = createStratboxClient({ baseUrl: server.baseUrl, apiKey: user.apiKey });
    // Busy enough (several seconds for half a year of 1m candles, on a loaded machine too) to be killed mid-run.
    const s = await client.strategies.create({
      body: { name: 'busy', source: 'export function onCandle(ctx, c) { let x = 0; for (let i = 0; i < 1500; i++) x += i; }' },
    });
    const running = await client.backtests.create({
      body: { strategyId: s.id, symbols: ['BTC/USDT:USDT'], startDate: '2024-01-01', endDate: '2024-06-30', timeframe: '1m' },
    });
    const queued = await client.backtests.create({
      body: { strategyId: s.id, symbols: ['ETH/USDT:USDT'], startDate: '2024-01-01', endDate: '2024-01-10', timeframe: '5m' },
    });
    for (let i = 0; i < 1200; i++) {
      if ((await client.backtests.get({ params: { id: running.id } })).status === 'running') break;
      await new Promise((r) => setTimeout(r, 25));
    }
    expect((await client.backtests.get({ params: { id: running.id } })).status).toBe('running');

    await server.stop('SIGKILL');
    server = await startServerProcess(env);
    client = createStratboxClient({ baseUrl: server.baseUrl, apiKey: user.apiKey });

    for (const id of [running.id, queued.id]) {
      let status = '';
      const deadline = Date.now() + 240_000;
      while (Date.now() < deadline && !['completed', 'failed', 'cancelled'].includes(status)) {
        status = (await client.backtests.get({ params: { id } })).status;
        if (status !== 'completed') await new Promise((r) => setTimeout(r, 50));
      }
      const final = await client.backtests.get({ params: { id } });
      expect(final.status, JSON.stringify(final.error)).toBe('completed');
      expect(final.metrics?.tradeCount).toBeTypeOf('number');
    }
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StratboxClient } from '@stratbox/client';
import { createMarketData, importFundingCsv, type MarketData } from '@stratbox/core';
import { startTestService, type TestService } from './harness/in-process.js';
import { expectError } from './harness/client-errors.js';
import { waitFinished } from './harness/wait-backtest.js';

/*
 * Funding of backtests, over HTTP on the example service (SQLite): whether a run pays funding
 * (`funding` in the request, LINEAR only) and where its rates came from (`fundingSource`), as a
 * user reads them back from the backtest. The default offline set-up has synthetic funding.
 */

const HOLD = `export const meta = { timeframe: '1h' };
export function onCandle(ctx, c) { if (!ctx.position(c.symbol)) ctx.buy(c.symbol, { size: 0.3 }); }`;
const RANGE = { startDate: '2025-01-01', endDate: '2025-01-05' };
const BTC = 'BTC/USDT:USDT';
const ETH = 'ETH/USDT:USDT';

describe('backtest funding over HTTP', () => {
  let service: TestService;
  let client: StratboxClient;
  let apiKey: string;
  let linear: string;
  let spot: string;

  beforeAll(async () => {
    service = await startTestService();
    const user = await service.newUser('funder');
    client = user.client;
    apiKey = user.apiKey;
    linear = (await client.strategies.create({ body: { name: 'Hold perp', source: HOLD } })).id;
    spot = (await client.strategies.create({ body: { name: 'Hold spot', source: HOLD, marketType: 'SPOT' } })).id;
  }, 60_000);
  afterAll(() => service?.close());

  it('a LINEAR backtest pays funding by default and records the synthetic source', { timeout: 120_000 }, async () => {
    const created = await client.backtests.create({ body: { strategyId: linear, symbols: [BTC, ETH], ...RANGE } });
    expect(created).toMatchObject({ marketType: 'LINEAR', funding: true, fundingSource: null });
    const done = await waitFinished(client, created.id);
    expect(done.status, JSON.stringify(done.error)).toBe('completed');
    expect(done).toMatchObject({ funding: true, fundingSource: 'synthetic', dataSource: 'synthetic' });
    // the open long positions paid (or received) funding at the synthetic events
    expect(done.metrics!.fundingPaid).not.toBe(0);
    for (const symbol of [BTC, ETH]) expect(done.metrics!.perSymbol[symbol]!.fundingPaid).not.toBe(0);
    const listed = await client.backtests.list({ query: { strategyId: linear } });
    expect(listed.backtests.find((b) => b.id === created.id)).toMatchObject({ funding: true, fundingSource: 'synthetic' });
  });

  it('`funding: false` turns it off: the run records no funding source', { timeout: 120_000 }, async () => {
    const created = await client.backtests.create({ body: { strategyId: linear, symbols: [BTC], ...RANGE, funding: false } });
    expect(created).toMatchObject({ funding: false, fundingSource: null });
    const done = await waitFinished(client, created.id);
    expect(done.status, JSON.stringify(done.error)).toBe('completed');
    expect(done).toMatchObject({ funding: false, fundingSource: null, dataSource: 'synthetic' });
    expect(done.metrics!.fundingPaid).toBe(0);
  });

  it('SPOT has no funding: asking for it is ignored', { timeout: 120_000 }, async () => {
    for (const body of [
      { strategyId: spot, symbols: [BTC], ...RANGE, funding: true },
      { strategyId: linear, symbols: [BTC], ...RANGE, marketType: 'SPOT' as const },
    ]) {
      const created = await client.backtests.create({ body });
      expect(created).toMatchObject({ marketType: 'SPOT', funding: false, fundingSource: null });
      const done = await waitFinished(client, created.id);
      expect(done.status, JSON.stringify(done.error)).toBe('completed');
      expect(done).toMatchObject({ funding: false, fundingSource: null });
      expect(done.metrics!.fundingPaid).toBe(0);
    }
  });

  it('names every source the symbols took their rates from: funding imported from CSV first', { timeout: 120_000 }, async () => {
    const rows: string[] = ['time,rate'];
    for (let t = Date.parse('2025-01-01T00:00:00Z'); t < Date.parse('2025-01-06T00:00:00Z'); t += 8 * 3_600_000)
      rows.push(`${new Date(t).toISOString()},0.0002`);
    await importFundingCsv({ store: service.stratbox.store, symbol: ETH, csv: rows.join('\n') });
    const created = await client.backtests.create({ body: { strategyId: linear, symbols: [BTC, ETH], ...RANGE } });
    const done = await waitFinished(client, created.id);
    expect(done.status, JSON.stringify(done.error)).toBe('completed');
    expect(done).toMatchObject({ funding: true, fundingSource: 'synthetic,csv' });
    // a long position pays the imported +0.02 % at every event it is open
    expect(done.metrics!.perSymbol[ETH]!.fundingPaid).toBeGreaterThan(0);
  });

  it('refuses a `funding` that is not a boolean with 400 naming the field', async () => {
    const error = await expectError(
      client.backtests.create({ body: { strategyId: linear, symbols: [BTC], ...RANGE, funding: 'yes' as never } }),
      400,
      'VALIDATION_FAILED',
    );
    expect(error.details).toEqual(expect.arrayContaining([expect.objectContaining({ path: 'body.funding' })]));
    const raw = await fetch(`${service.baseUrl}/api/backtests`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ strategyId: linear, symbols: [BTC], ...RANGE, funding: 1 }),
    });
    expect(raw.status).toBe(400);
    expect(await raw.json()).toMatchObject({ error: { code: 'VALIDATION_FAILED' } });
  });
});

describe('backtest funding when the market data has none', () => {
  let service: TestService;
  afterAll(() => service?.close());

  it('runs without funding and records no source, though funding was asked for', { timeout: 120_000 }, async () => {
    let candles: MarketData | undefined;
    // candles only: a MarketData without getFundingRates
    const marketData: MarketData = { getCandles: (request) => candles!.getCandles(request) };
    service = await startTestService({ marketData });
    candles = createMarketData({ store: service.stratbox.store });
    const { client } = await service.newUser('nofunding');
    const strategyId = (await client.strategies.create({ body: { name: 'Hold', source: HOLD } })).id;
    const created = await client.backtests.create({ body: { strategyId, symbols: [BTC], ...RANGE } });
    const done = await waitFinished(client, created.id);
    expect(done.status, JSON.stringify(done.error)).toBe('completed');
    expect(done).toMatchObject({ funding: true, fundingSource: null, dataSource: 'synthetic' });
    expect(done.metrics!.fundingPaid).toBe(0);
  });
});

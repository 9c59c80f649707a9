import type { StratboxClient } from '@stratbox/client';
import { waitFinished } from './wait-backtest.js';

/** An SMA crossover whose periods are parameters, so two runs of it differ. */
export const SMA_CROSS = [
  "export const meta = { timeframe: '1h', params: { fast: { type: 'int', default: 10, min: 2 }, slow: { type: 'int', default: 30, min: 5 } } };",
  'export function onCandle(ctx, candle) {',
  '  const f = ctx.indicators.sma(candle.symbol, ctx.params.fast), s = ctx.indicators.sma(candle.symbol, ctx.params.slow);',
  '  if (f > s && !ctx.position(candle.symbol)) ctx.buy(candle.symbol, { size: 0.2 });',
  '  else if (f < s && ctx.position(candle.symbol)) ctx.close(candle.symbol);',
  '}',
].join('\n');

/** A strategy and two completed backtests of it with different parameters (fast 5/slow 20 and fast 10/slow 30). */
export async function seedTwoBacktests(client: StratboxClient): Promise<{ strategyId: string; backtestIds: [string, string] }> {
  const strategy = await client.strategies.create({ body: { name: 'SMA cross (seeded)', source: SMA_CROSS } });
  const ids: string[] = [];
  for (const params of [
    { fast: '5', slow: '20' },
    { fast: '10', slow: '30' },
  ]) {
    const created = await client.backtests.create({
      body: { strategyId: strategy.id, symbols: ['BTC/USDT:USDT'], startDate: '2025-01-01', endDate: '2025-02-28', params },
    });
    const done = await waitFinished(client, created.id, 120_000);
    if (done.status !== 'completed') throw new Error(`Seeded backtest ${created.id} ended ${done.status}`);
    ids.push(created.id);
  }
  return { strategyId: strategy.id, backtestIds: [ids[0]!, ids[1]!] };
}

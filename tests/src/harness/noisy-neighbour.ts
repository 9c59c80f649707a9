import type { StratboxClient } from '@stratbox/client';
import { waitFor } from './deferred.js';

/**
 * What the noisy-neighbour tests run: user A's endless loops (ten of them), and user B's small
 * two-week `1h` backtest that must not wait behind them.
 */
export const LOOPS = 10;
export const LOOP = `export const meta = { timeframe: '1h' };\nexport function onCandle() { for (;;) {} }`;
export const SMALL = `export const meta = { timeframe: '1h' };
export function onCandle(ctx, c) {
  if (ctx.indicators.sma(c.symbol, 5) > ctx.indicators.sma(c.symbol, 20) && !ctx.position(c.symbol)) ctx.buy(c.symbol, { size: 0.5 });
  else if (ctx.position(c.symbol)) ctx.close(c.symbol);
}`;
export const TWO_WEEKS = { symbols: ['BTC/USDT:USDT'], startDate: '2025-01-01', endDate: '2025-01-15', timeframe: '1h' as const };
/** The statuses a backtest ends in. */
export const ENDED = ['completed', 'failed', 'cancelled'];

/**
 * Creates user B's two-week backtest of `strategyId` and waits until it ends: the run as the API
 * answers it then, and how long it took from its create to its finish (the API's own times).
 */
export async function runSmallBacktest(b: StratboxClient, strategyId: string) {
  const mine = await b.backtests.create({ body: { strategyId, ...TWO_WEEKS } });
  const done = await waitFor(
    "B's backtest to end",
    async () => {
      const r = await b.backtests.get({ params: { id: mine.id } });
      return ENDED.includes(r.status) ? r : null;
    },
    60_000,
    100,
  );
  return { done, waitedMs: Date.parse(done.finishedAt!) - Date.parse(done.createdAt) };
}

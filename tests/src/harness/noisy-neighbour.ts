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

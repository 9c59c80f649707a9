/*
 * Strategy sources the paper-deployment tests share (test-only).
 */

/**
 * On its first candle: a market entry, a reduce-only take-profit far above, an entry limit far
 * below, then a fourth order (a second far limit). With `maxOrdersPerMinute: 3` the fourth breaches.
 */
export const FOUR_ORDERS = `
export const meta = { timeframe: '1m' };
let done = false;
export function onCandle(ctx, c) {
  if (done) return;
  done = true;
  ctx.buy(c.symbol, { quantity: 0.01, tag: 'entry' });
  ctx.sell(c.symbol, { type: 'limit', price: Math.round(c.close * 2), quantity: 0.01, reduceOnly: true, tag: 'tp' });
  ctx.buy(c.symbol, { type: 'limit', price: Math.round(c.close * 0.5), quantity: 0.01, tag: 'dip' });
  ctx.buy(c.symbol, { type: 'limit', price: Math.round(c.close * 0.4), quantity: 0.01, tag: 'deeper' });
}
`;

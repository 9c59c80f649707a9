/** Strategy sources the end-to-end tests share. */

/** Flips its position on every candle: long, then short, then long..., one trade per one-minute candle. */
export const FLIP_STRATEGY = `
export const meta = { timeframe: '1m' };
export function onCandle(ctx, c) {
  const p = ctx.position(c.symbol);
  if (!p) ctx.buy(c.symbol, { quantity: 0.01 });
  else if (p.side === 'long') ctx.sell(c.symbol, { quantity: 0.02 });
  else ctx.buy(c.symbol, { quantity: 0.02 });
}
`;

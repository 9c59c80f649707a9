/** The source a new strategy starts from: a moving-average cross with its parameters in `meta` (docs/strategy-api.md). */
export const DEFAULT_SOURCE = `export const meta = {
  timeframe: '1h',
  warmup: 50,
  params: {
    fast: { type: 'int', default: 10, min: 2, max: 200, description: 'Fast moving average, in candles' },
    slow: { type: 'int', default: 50, min: 5, max: 500, description: 'Slow moving average, in candles' },
    size: { type: 'float', default: 0.1, min: 0.01, max: 1, description: 'Share of equity per trade' },
  },
};

export function onCandle(ctx, candle) {
  const fast = ctx.indicators.sma(candle.symbol, ctx.params.fast);
  const slow = ctx.indicators.sma(candle.symbol, ctx.params.slow);
  const position = ctx.position(candle.symbol);
  if (fast > slow && !position) ctx.buy(candle.symbol, { size: ctx.params.size });
  else if (fast < slow && position) ctx.close(candle.symbol);
}
`;

/*
 * The strategy a backtest child runs once before taking jobs (backtest-child-program.ts), so V8
 * has compiled QuickJS's hot paths and the first real job does not pay for it: an SMA crossover
 * that trades, touching indicators, orders, fills and positions. Bundled like the runtimes and
 * compiled as any strategy source.
 */
interface WarmUpCtx {
  indicators: { sma(symbol: string, period: number): number };
  position(symbol: string): unknown;
  buy(symbol: string, options: { size: number }): string;
  close(symbol: string): string | null;
}

export function onCandle(ctx: WarmUpCtx, c: { symbol: string }): void {
  if (ctx.indicators.sma(c.symbol, 5) > ctx.indicators.sma(c.symbol, 20) && !ctx.position(c.symbol)) ctx.buy(c.symbol, { size: 0.5 });
  else if (ctx.position(c.symbol)) ctx.close(c.symbol);
}

/** A strategy that trades: a fast and a slow moving average crossing. */
export const SMA_SOURCE = `export const meta = { timeframe: '1h' };
export function onCandle(ctx, c) {
  const f = ctx.indicators.sma(c.symbol, 10), s = ctx.indicators.sma(c.symbol, 50);
  if (f > s && !ctx.position(c.symbol)) ctx.buy(c.symbol, { size: 0.5 });
  else if (f < s && ctx.position(c.symbol)) ctx.close(c.symbol);
}`;

/** Polls `probe` until it returns a value, for at most `timeoutMs`. */
export async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The strategy's module namespace, as the runtime receives it. */
export type StrategyModule = { onCandle?: unknown; onOrder?: unknown } & Record<string, unknown>;

/** A closed candle, as `onCandle` gets it (one object per symbol, reused). */
export interface StrategyCandle {
  symbol: string;
  time: number;
  open: number;
  high: number;
  low: number;
  close: number;
  volume: number;
}

/** The strategy's handlers: `onCandle` (required) and `onOrder` (optional); a TypeError the author reads otherwise. */
export function strategyHandlers(ns: StrategyModule) {
  const onCandle = ns.onCandle as (ctx: unknown, candle: unknown) => void;
  const onOrder = ns.onOrder as ((ctx: unknown, event: unknown) => void) | undefined;
  if (typeof onCandle !== 'function') throw new TypeError('The strategy must export a function onCandle(ctx, candle)');
  if (onOrder !== undefined && typeof onOrder !== 'function') throw new TypeError('onOrder, when exported, must be a function');
  return { onCandle, onOrder };
}

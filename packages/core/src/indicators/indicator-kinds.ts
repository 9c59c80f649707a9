/**
 * The indicators strategies can ask for through `ctx.indicators`. The guest runtime and the
 * host agree on these numeric kinds; the host computes the values (see `createIndicator`).
 */
export const INDICATOR_KINDS = ['sma', 'ema', 'rsi', 'atr', 'bollinger'] as const;
export type IndicatorKind = (typeof INDICATOR_KINDS)[number];

/** Number of output series of each kind (Bollinger has upper, middle and lower). */
export const INDICATOR_OUTPUTS: Record<IndicatorKind, number> = { sma: 1, ema: 1, rsi: 1, atr: 1, bollinger: 3 };

/** Largest period an indicator accepts. */
export const MAX_INDICATOR_PERIOD = 100_000;

/** A request for one indicator series: `period` for all kinds, `multiplier` for Bollinger. */
export interface IndicatorSpec {
  kind: IndicatorKind;
  period: number;
  multiplier?: number;
}

/** Why a spec is not acceptable, or null when it is. */
export function indicatorSpecProblem(spec: IndicatorSpec): string | null {
  if (!Number.isInteger(spec.period) || spec.period < 1 || spec.period > MAX_INDICATOR_PERIOD) {
    return `${spec.kind} period must be an integer from 1 to ${MAX_INDICATOR_PERIOD}, got ${String(spec.period)}`;
  }
  if (spec.kind === 'bollinger') {
    const m = spec.multiplier ?? 2;
    if (!Number.isFinite(m) || m <= 0 || m > 100) return `bollinger multiplier must be a number in (0, 100], got ${String(m)}`;
  }
  return null;
}

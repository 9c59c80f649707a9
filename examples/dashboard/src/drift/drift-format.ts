import type { DriftReport } from '@stratbox/client';

type Cause = NonNullable<DriftReport['parity']['firstDivergence']>['cause'];

/** A share as people say it: `1` as `100 %`, `0.9876` as `98.8 %`; null (nothing to share) as an en dash. */
export function formatShare(share: number | null | undefined): string {
  if (share === null || share === undefined || !Number.isFinite(share)) return '–';
  const percent = share * 100;
  const text = Number.isInteger(percent) ? String(percent) : percent.toFixed(1);
  return `${text} %`;
}

/** Basis points, two decimals: `5.00 bps`; null as an en dash. */
export function formatBps(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '–';
  return `${value.toLocaleString('en', { minimumFractionDigits: 2, maximumFractionDigits: 2 })} bps`;
}

/**
 * An amount of the quote currency with `digits` decimals (2 by default); `signed`: with its sign
 * always (`+1.25`, `−0.40` with a true minus sign, `0.00`), as a change reads.
 */
export function formatAmount(value: number | null | undefined, { digits = 2, signed = false }: { digits?: number; signed?: boolean } = {}): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '–';
  const scale = 10 ** digits;
  const rounded = Math.round(value * scale) / scale;
  const text = Math.abs(rounded).toLocaleString('en', { minimumFractionDigits: digits, maximumFractionDigits: digits });
  if (rounded === 0) return text;
  return rounded > 0 ? (signed ? `+${text}` : text) : signed ? `\u2212${text}` : `-${text}`;
}

/** Decimals that show amounts up to `largest` (in size): 2 from 1 up, more below (a paper run's P&L in fractions of a cent), 8 at most. */
export function amountDigits(largest: number): number {
  const size = Math.abs(largest);
  if (!(size > 0) || size >= 1) return 2;
  return Math.min(8, Math.max(2, Math.ceil(-Math.log10(size)) + 2));
}

/** A time offset in ms as people read it: `0 ms`, `850 ms`, `2.5 s`, `3 min`. */
export function formatOffset(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return '–';
  const size = Math.abs(ms);
  if (size < 1000) return `${Math.round(ms)} ms`;
  if (size < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${(ms / 60_000).toFixed(1)} min`;
}

/** What the likely cause of a divergence means. */
export const CAUSE_LABELS: Record<Cause, string> = {
  restart: 'state lost on a restart',
  missed_candle: 'a candle the deployment missed',
  data: 'a difference in the candle data',
  order_outcome: 'an order outcome the replay did not have',
  unknown: 'unknown',
};

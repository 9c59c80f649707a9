/** How full a usage counter is: `ok` below 80%, `high` from 80%, `over` at or past its limit. */
export type UsageLevel = 'ok' | 'high' | 'over';

/** The share of `limit` used, between 0 and 1 (1 when the limit is 0 or less and something is used). */
export function usageFraction(used: number, limit: number): number {
  if (limit <= 0) return used > 0 ? 1 : 0;
  return Math.min(1, Math.max(0, used / limit));
}

/** The level of a counter, for its colour and its words. */
export function usageLevel(used: number, limit: number): UsageLevel {
  if (used >= limit && (limit > 0 || used > 0)) return 'over';
  return usageFraction(used, limit) >= 0.8 ? 'high' : 'ok';
}

/** CPU-seconds as a person reads them: `45 s`, `12 min`, `3.5 h`. */
export function formatCpuSeconds(seconds: number): string {
  if (seconds < 60) return `${Math.round(seconds)} s`;
  if (seconds < 3600) return `${Math.round(seconds / 60)} min`;
  const hours = seconds / 3600;
  return `${hours >= 100 ? Math.round(hours).toLocaleString('en') : Number(hours.toFixed(1)).toLocaleString('en')} h`;
}

/** An amount in the smallest unit of `currency` (cents for `usd`, yen for `jpy`) as money: `$29.00`. */
export function formatMinorAmount(amount: number, currency: string): string {
  try {
    const format = new Intl.NumberFormat('en', { style: 'currency', currency: currency.toUpperCase() });
    const digits = format.resolvedOptions().maximumFractionDigits ?? 2;
    return format.format(amount / 10 ** digits);
  } catch {
    // a code Intl does not know: the raw amount with the code
    return `${amount.toLocaleString('en')} ${currency.toUpperCase()} (minor units)`;
  }
}

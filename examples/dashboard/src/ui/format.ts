const percent = new Intl.NumberFormat('en', { style: 'percent', minimumFractionDigits: 2, maximumFractionDigits: 2 });
const decimal = new Intl.NumberFormat('en', { maximumFractionDigits: 2 });
const money = new Intl.NumberFormat('en', { minimumFractionDigits: 2, maximumFractionDigits: 2 });

/** `0.1234` as `12.34%`; null (not computable) as an en dash. */
export function formatPercent(value: number | null | undefined): string {
  return value === null || value === undefined || !Number.isFinite(value) ? '–' : percent.format(value);
}

/** A ratio such as a Sharpe ratio, two decimals at most. */
export function formatNumber(value: number | null | undefined): string {
  return value === null || value === undefined || !Number.isFinite(value) ? '–' : decimal.format(value);
}

/** An amount of the quote currency, two decimals. */
export function formatMoney(value: number | null | undefined): string {
  return value === null || value === undefined || !Number.isFinite(value) ? '–' : money.format(value);
}

/** A price or quantity with the digits it needs (up to 8). */
export function formatPrice(value: number): string {
  const digits = Math.abs(value) >= 1000 ? 2 : Math.abs(value) >= 1 ? 4 : 8;
  return value.toLocaleString('en', { maximumFractionDigits: digits });
}

/** An ISO timestamp as `2025-01-02 03:04` (UTC, as the service keeps time). */
export function formatTime(iso: string | null | undefined): string {
  if (!iso) return '–';
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)}`;
}

/** A duration in ms as days and hours: `3d 4h`. */
export function formatDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return '–';
  const hours = Math.round(ms / 3_600_000);
  const days = Math.floor(hours / 24);
  return days > 0 ? `${days}d ${hours % 24}h` : `${hours}h`;
}

import type { UsagePeriod } from '../ports/store.js';

/** `date` plus `months` calendar months in UTC, the day clamped to the target month's length. */
export function addMonthsUtc(date: Date, months: number): Date {
  const y = date.getUTCFullYear();
  const m = date.getUTCMonth() + months;
  const lastDay = new Date(Date.UTC(y, m + 1, 0)).getUTCDate();
  return new Date(
    Date.UTC(y, m, Math.min(date.getUTCDate(), lastDay), date.getUTCHours(), date.getUTCMinutes(), date.getUTCSeconds(), date.getUTCMilliseconds()),
  );
}

/** The calendar month (UTC) that holds `now`: the free plan's billing period. */
export function calendarMonth(now: Date): UsagePeriod {
  const start = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  const end = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
  return { start: start.toISOString(), end: end.toISOString() };
}

/**
 * The billing period that holds `now`, given a subscription's current period: that period while
 * it lasts; once it has ended and the provider has not yet reported the renewal, the following
 * periods of the same length in months (at least one), counted from its start. Without a usable
 * period, the calendar month.
 */
export function periodContaining(currentStart: string | null, currentEnd: string | null, now: Date): UsagePeriod {
  if (!currentStart || !currentEnd) return calendarMonth(now);
  const start = new Date(currentStart);
  const end = new Date(currentEnd);
  if (!(start < end) || Number.isNaN(start.getTime()) || Number.isNaN(end.getTime())) return calendarMonth(now);
  if (now < start) return calendarMonth(now);
  if (now < end) return { start: start.toISOString(), end: end.toISOString() };
  const stepMonths = Math.max(1, Math.round((end.getTime() - start.getTime()) / (30.44 * 86_400_000)));
  let k = Math.floor((now.getTime() - start.getTime()) / (stepMonths * 30.44 * 86_400_000));
  k = Math.max(1, k - 1);
  for (let i = 0; i < 1000; i++, k++) {
    const s = addMonthsUtc(start, k * stepMonths);
    const e = addMonthsUtc(start, (k + 1) * stepMonths);
    if (now >= s && now < e) return { start: s.toISOString(), end: e.toISOString() };
  }
  return calendarMonth(now);
}

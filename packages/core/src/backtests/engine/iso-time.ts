const DAY_MS = 86_400_000;
/** 0000-01-01T00:00:00.000Z and 10000-01-01T00:00:00.000Z: inside, `toISOString` has a 4-digit year. */
const FOUR_DIGIT_YEARS_FROM = -62_167_219_200_000;
const FOUR_DIGIT_YEARS_TO = 253_402_300_800_000;

let cachedDay = Number.NaN;
let cachedPrefix = '';

const two = (n: number) => (n < 10 ? `0${n}` : `${n}`);
const three = (n: number) => (n < 10 ? `00${n}` : n < 100 ? `0${n}` : `${n}`);

/**
 * ISO 8601 with milliseconds (`2026-01-02T03:04:05.000Z`), exactly as `Date.prototype.toISOString`
 * writes it, several times faster for runs of times within a day: equity curves and trade lists
 * turn up to a million candle times into strings. Throws RangeError for an invalid time, as
 * `toISOString` does.
 */
export function iso(ms: number): string {
  if (!(ms >= FOUR_DIGIT_YEARS_FROM && ms < FOUR_DIGIT_YEARS_TO) || !Number.isInteger(ms)) return new Date(ms).toISOString();
  const day = Math.floor(ms / DAY_MS) * DAY_MS;
  if (day !== cachedDay) {
    cachedPrefix = new Date(day).toISOString().slice(0, 11);
    cachedDay = day;
  }
  let rest = ms - day;
  const hours = Math.floor(rest / 3_600_000);
  rest -= hours * 3_600_000;
  const minutes = Math.floor(rest / 60_000);
  rest -= minutes * 60_000;
  const seconds = Math.floor(rest / 1000);
  return `${cachedPrefix}${two(hours)}:${two(minutes)}:${two(seconds)}.${three(rest - seconds * 1000)}Z`;
}

const DAY_MS = 86_400_000;
/** 0000-01-01T00:00:00.000Z and 10000-01-01T00:00:00.000Z: inside, `toISOString` has a 4-digit year. */
const FOUR_DIGIT_YEARS_FROM = -62_167_219_200_000;
const FOUR_DIGIT_YEARS_TO = 253_402_300_800_000;
const ZERO = 48;
const COLON = 58;
const DOT = 46;
const Z = 90;

let cachedDay = Number.NaN;
/** Character codes of `YYYY-MM-DDT` for `cachedDay`. */
let prefix: number[] = [];

/**
 * ISO 8601 with milliseconds (`2026-01-02T03:04:05.000Z`), exactly as `Date.prototype.toISOString`
 * writes it, about three times faster for runs of times within a day: equity curves and trade
 * lists turn up to a million candle times into strings. The string is built in one piece (not
 * concatenated), so a million of them stay as compact as `toISOString`'s. Throws RangeError for
 * an invalid time, as `toISOString` does.
 */
export function iso(ms: number): string {
  if (!(ms >= FOUR_DIGIT_YEARS_FROM && ms < FOUR_DIGIT_YEARS_TO) || !Number.isInteger(ms)) return new Date(ms).toISOString();
  const day = Math.floor(ms / DAY_MS) * DAY_MS;
  if (day !== cachedDay) {
    prefix = Array.from(new Date(day).toISOString().slice(0, 11), (c) => c.charCodeAt(0));
    cachedDay = day;
  }
  let rest = ms - day;
  const h = Math.floor(rest / 3_600_000);
  rest -= h * 3_600_000;
  const m = Math.floor(rest / 60_000);
  rest -= m * 60_000;
  const s = Math.floor(rest / 1000);
  rest -= s * 1000;
  const p = prefix;
  return String.fromCharCode(
    p[0]!,
    p[1]!,
    p[2]!,
    p[3]!,
    p[4]!,
    p[5]!,
    p[6]!,
    p[7]!,
    p[8]!,
    p[9]!,
    p[10]!,
    ZERO + Math.floor(h / 10),
    ZERO + (h % 10),
    COLON,
    ZERO + Math.floor(m / 10),
    ZERO + (m % 10),
    COLON,
    ZERO + Math.floor(s / 10),
    ZERO + (s % 10),
    DOT,
    ZERO + Math.floor(rest / 100),
    ZERO + (Math.floor(rest / 10) % 10),
    ZERO + (rest % 10),
    Z,
  );
}

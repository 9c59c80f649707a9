import { StratboxError } from '../errors/stratbox-error.js';
import type { Store } from '../ports/store.js';
import type { ValidationProblem } from '../util/validate.js';
import { DAY_MS, daysBetween } from './candle-range.js';
import { createStoreFundingCache } from './cached-funding.js';
import { CsvSyntaxError, MAX_PROBLEMS, isHeader, normalizeName, parseCsvTime, records } from './csv-import.js';
import { allocateFunding } from './funding-series.js';

export interface ImportFundingCsvOptions {
  store: Store;
  /** The cache source the rates are written under. Default `csv` (what `createMarketData` reads first). */
  source?: string;
  symbol: string;
  /** The whole file, or its text in pieces (e.g. a file stream read as UTF-8); pieces may split lines anywhere. */
  csv: string | AsyncIterable<string>;
  /** The most rows accepted. Default 1,000,000. */
  maxRows?: number;
}

export interface ImportFundingCsvResult {
  imported: number;
  /** Time of the first and last funding event, ISO 8601. */
  firstTime: string;
  lastTime: string;
}

/** Header names of the two columns, compared in lower case without spaces, `_` or `-`. */
const TIME_NAMES = ['time', 'timestamp', 'date', 'datetime', 'fundingtime', 'calctime', 'ts'];
const RATE_NAMES = ['rate', 'fundingrate', 'lastfundingrate'];

/** The largest rate accepted, either way (as the backtest engine): 1 is 100 % per event. */
const MAX_RATE = 1;

/** Where time and rate are in a row, how many cells a row has, and whether a header said so. */
interface Layout {
  time: number;
  rate: number;
  width: number;
  header: boolean;
}

function headerLayout(cells: string[]): Layout | string {
  const names = cells.map(normalizeName);
  const find = (accepted: readonly string[], field: string): number | string => {
    const found = names.flatMap((name, k) => (accepted.includes(name) ? [k] : []));
    if (found.length > 1) return `the header has ${found.length} columns for ${field} (${found.map((k) => `"${cells[k]}"`).join(', ')})`;
    if (found.length === 0) return `the header has no column for ${field} (named ${accepted.join('/')}; found ${cells.map((c) => `"${c}"`).join(', ')})`;
    return found[0]!;
  };
  const time = find(TIME_NAMES, 'time');
  if (typeof time === 'string') return time;
  const rate = find(RATE_NAMES, 'rate');
  if (typeof rate === 'string') return rate;
  return { time, rate, width: cells.length, header: true };
}

/**
 * Imports funding rates from CSV text into the Store's funding cache under `source` (default
 * `csv`), for the backtests of perpetuals. RFC 4180 CSV as `importCandlesCsv` reads it. With a
 * header, its names place the two columns in any order, other columns ignored (time as `time`,
 * `timestamp`, `date`, `funding_time` or `calc_time`; rate as `rate`, `funding_rate` or
 * `last_funding_rate`: Binance's monthly fundingRate files are read as they are); without one, a
 * row is `time,rate`. `time` is the funding time (epoch s, ms, µs or ns, or ISO 8601, UTC unless
 * a zone is given); `rate` is a fraction per event (0.0001 is 0.01 %), from -1 to 1. Rows may
 * come in any order. If any row is wrong (or a time appears twice) nothing is written and the
 * error (VALIDATION_FAILED) lists the first problems with their line numbers. Rows replace cached
 * rates at the same time; days from the first to the last row without a row are recorded as
 * known to hold none, so the range counts as covered.
 */
export async function importFundingCsv(options: ImportFundingCsvOptions): Promise<ImportFundingCsvResult> {
  const { store, symbol } = options;
  const source = options.source ?? 'csv';
  const maxRows = options.maxRows ?? 1_000_000;
  if (!symbol) throw new StratboxError('VALIDATION_FAILED', 'A symbol is required', [{ path: 'symbol', message: 'Required' }]);
  const problems: ValidationProblem[] = [];
  let problemCount = 0;
  const report = (line: number, message: string) => {
    problemCount++;
    if (problems.length < MAX_PROBLEMS) problems.push({ path: `line ${line}`, message });
  };

  const rows: Array<{ time: number; rate: number; line: number }> = [];
  let layout: Layout | null = null;
  try {
    for await (const { cells, line } of records(options.csv)) {
      if (layout === null) {
        if (isHeader(cells)) {
          const read = headerLayout(cells);
          if (typeof read === 'string')
            throw new StratboxError('VALIDATION_FAILED', `The CSV's header is not usable: ${read}`, [{ path: `line ${line}`, message: read }]);
          layout = read;
          continue;
        }
        layout = { time: 0, rate: 1, width: 2, header: false };
      }
      if (cells.length !== layout.width) {
        report(
          line,
          !layout.header ? `expected 2 values (time,rate), found ${cells.length}` : `expected ${layout.width} values as in the header, found ${cells.length}`,
        );
        continue;
      }
      const time = parseCsvTime(cells[layout.time]!);
      const rateCell = cells[layout.rate]!;
      const rate = rateCell === '' ? Number.NaN : Number(rateCell);
      if (!Number.isFinite(time)) report(line, 'time is not epoch milliseconds, epoch seconds or an ISO 8601 date');
      else if (!Number.isFinite(rate)) report(line, 'rate is not a number');
      else if (Math.abs(rate) > MAX_RATE) report(line, `rate ${rate} is not a fraction from -1 to 1 (0.0001 is 0.01 %)`);
      else {
        if (rows.length >= maxRows) {
          throw new StratboxError('VALIDATION_FAILED', `The CSV has more than ${maxRows} rows; split it into several imports`, [
            { path: `line ${line}`, message: `More than ${maxRows} rows` },
          ]);
        }
        rows.push({ time, rate, line });
      }
    }
  } catch (error) {
    if (!(error instanceof CsvSyntaxError)) throw error;
    report(error.line, error.message);
  }

  rows.sort((a, b) => a.time - b.time || a.line - b.line);
  for (let i = 1; i < rows.length; i++) {
    if (rows[i]!.time === rows[i - 1]!.time) {
      report(rows[i]!.line, `time ${new Date(rows[i]!.time).toISOString()} appears twice (also line ${rows[i - 1]!.line})`);
    }
  }
  if (problemCount > 0) {
    problems.sort((a, b) => Number(a.path.slice(5)) - Number(b.path.slice(5)));
    const first = problems[0]!;
    throw new StratboxError(
      'VALIDATION_FAILED',
      `${problemCount} invalid row${problemCount > 1 ? 's' : ''} in the CSV, nothing imported; first: ${first.path}: ${first.message}`,
      problems,
    );
  }
  if (rows.length === 0) throw new StratboxError('VALIDATION_FAILED', 'The CSV holds no funding rates', [{ path: 'csv', message: 'No rows' }]);

  const series = allocateFunding(symbol, rows.length);
  rows.forEach((row, i) => {
    series.time[i] = row.time;
    series.rate[i] = row.rate;
  });
  const firstMs = series.time[0]!;
  const lastMs = series.time[series.length - 1]!;
  const days = daysBetween(Math.floor(firstMs / DAY_MS) * DAY_MS, lastMs + 1);
  await createStoreFundingCache(store).write(source, series, { merge: true, days });
  return { imported: series.length, firstTime: new Date(firstMs).toISOString(), lastTime: new Date(lastMs).toISOString() };
}

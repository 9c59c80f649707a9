import { Readable } from 'node:stream';
import { CsvError, parse } from 'csv-parse';
import { StratboxError } from '../errors/stratbox-error.js';
import { TIMEFRAME_MS, type CandleSeries, type TimeframeName } from '../ports/market-data.js';
import type { Store } from '../ports/store.js';
import type { ValidationProblem } from '../util/validate.js';
import { allocateSeries, copyCandle, sliceSeries } from './candle-series.js';
import { DAY_MS, daysBetween, isTimeframe } from './candle-range.js';
import { createStoreCandleCache } from './cached-market-data.js';

export interface ImportCandlesCsvOptions {
  store: Store;
  /** The cache source the candles are written under. Default `csv` (what `createMarketData` reads first). */
  source?: string;
  symbol: string;
  timeframe: TimeframeName;
  /** The whole file, or its text in pieces (e.g. a file stream read as UTF-8); pieces may split lines anywhere. */
  csv: string | AsyncIterable<string>;
  /** The most rows accepted. Default 5,000,000. */
  maxRows?: number;
}

export interface ImportCandlesCsvResult {
  imported: number;
  /** Open time of the first and last candle, ISO 8601. */
  firstTime: string;
  lastTime: string;
}

/** How many problems the error lists (it also says how many there were in all). */
export const MAX_PROBLEMS = 10;
/*
 * A numeric time's unit, by size: below 1e11 seconds (1e11 s is in the year 5138), then
 * milliseconds up to 1e14, microseconds up to 1e17 (Binance's files since 2025), nanoseconds
 * beyond. Each bound is where the smaller unit reaches the year 5138 and the larger is in 1973.
 */
const SECONDS_LIMIT = 1e11;
const MILLISECONDS_LIMIT = 1e14;
const MICROSECONDS_LIMIT = 1e17;
const ZONE_RE = /(Z|[+-]\d{2}:?\d{2})$/i;

/** A time cell as epoch ms: epoch seconds, milliseconds, microseconds or nanoseconds, or ISO 8601 (UTC unless it names a zone). */
export function parseCsvTime(cell: string): number {
  if (/^-?\d+(\.\d+)?$/.test(cell)) {
    const n = Number(cell);
    const size = Math.abs(n);
    if (size < SECONDS_LIMIT) return Math.round(n * 1000);
    if (size < MILLISECONDS_LIMIT) return n;
    return Math.round(size < MICROSECONDS_LIMIT ? n / 1000 : n / 1e6);
  }
  if (!/^\d{4}-\d{2}-\d{2}/.test(cell)) return Number.NaN;
  let iso = cell.replace(' ', 'T');
  if (iso.length > 10 && !ZONE_RE.test(iso)) iso += 'Z';
  return Date.parse(iso);
}

const FIELDS = ['time', 'open', 'high', 'low', 'close', 'volume'] as const;
type Field = (typeof FIELDS)[number];

/** Header names of each field, compared in lower case without spaces, `_` or `-` (`Open Time` is `opentime`). */
const HEADER_NAMES: Record<Field, readonly string[]> = {
  time: ['time', 'timestamp', 'date', 'datetime', 'opentime', 'ts'],
  open: ['open', 'o'],
  high: ['high', 'h'],
  low: ['low', 'l'],
  close: ['close', 'c'],
  volume: ['volume', 'vol', 'v'],
};
/** Column counts of a file without a header: the six fields, or Binance's 12-column klines (the same six first). */
const HEADERLESS_WIDTHS = [6, 12];

/** Where each field is in a row, and how many cells a row has (null: 6 or 12). */
interface Layout {
  columns: readonly number[];
  width: number | null;
}
const HEADERLESS: Layout = { columns: [0, 1, 2, 3, 4, 5], width: null };

export const normalizeName = (name: string) => name.toLowerCase().replace(/[\s_-]+/g, '');

/** True when the first row is a header: its first cell is not a time and it has a letter. */
export function isHeader(cells: string[]): boolean {
  return Number.isNaN(parseCsvTime(cells[0] ?? '')) && cells.some((c) => /[a-z]/i.test(c));
}

/** The layout a header gives, or the problem with it. */
function headerLayout(cells: string[]): Layout | string {
  const names = cells.map(normalizeName);
  const columns: number[] = [];
  const missing: string[] = [];
  for (const field of FIELDS) {
    const found = names.flatMap((name, k) => (HEADER_NAMES[field].includes(name) ? [k] : []));
    if (found.length > 1) return `the header has ${found.length} columns for ${field} (${found.map((k) => `"${cells[k]}"`).join(', ')})`;
    if (found.length === 0) missing.push(field);
    else columns.push(found[0]!);
  }
  if (missing.length > 0) {
    return `the header has no column for ${missing.join(', ')} (columns named ${FIELDS.map((f) => HEADER_NAMES[f].join('/')).join(', ')} are read; found ${cells.map((c) => `"${c}"`).join(', ')})`;
  }
  return { columns, width: cells.length };
}

/** The problem with a row's number of cells, or null. */
function widthProblem(layout: Layout, count: number): string | null {
  if (layout.width === null) {
    return HEADERLESS_WIDTHS.includes(count) ? null : `expected 6 values (time,open,high,low,close,volume) or Binance's 12 kline columns, found ${count}`;
  }
  return count === layout.width ? null : `expected ${layout.width} values as in the header, found ${count}`;
}

/** One parsed CSV record and the line it ends on. */
export interface CsvRecord {
  cells: string[];
  line: number;
}

/**
 * The records of the CSV (RFC 4180: quoted fields, `""` inside quotes, CRLF or LF, a UTF-8
 * BOM), blank lines skipped. A malformed file (a quote never closed, ...) throws the problem
 * and its line as `{ line, message }`.
 */
export async function* records(csv: string | AsyncIterable<string>): AsyncGenerator<CsvRecord> {
  const parser = parse({ bom: true, trim: true, skip_empty_lines: true, relax_column_count: true, info: true });
  const input = Readable.from(typeof csv === 'string' ? [csv] : csv);
  input.once('error', (error) => parser.destroy(error));
  input.pipe(parser);
  try {
    for await (const { record, info } of parser as AsyncIterable<{ record: string[]; info: { lines: number } }>) {
      yield { cells: record, line: info.lines };
    }
  } catch (error) {
    if (error instanceof CsvError) throw new CsvSyntaxError(typeof error['lines'] === 'number' ? error['lines'] : 0, error.message);
    throw error;
  } finally {
    input.destroy();
  }
}

/** A CSV that cannot be read (a quote never closed, ...), at `line`. */
export class CsvSyntaxError extends Error {
  constructor(
    readonly line: number,
    message: string,
  ) {
    super(message);
  }
}

/** A growable column store for parsed rows. */
function createColumns(symbol: string, timeframe: TimeframeName) {
  let series = allocateSeries(symbol, timeframe, 1024);
  let lineOf = new Float64Array(1024);
  let n = 0;
  return {
    get length() {
      return n;
    },
    push(line: number, values: number[]) {
      if (n === series.length) {
        const bigger = allocateSeries(symbol, timeframe, series.length * 2);
        for (const key of ['time', 'open', 'high', 'low', 'close', 'volume'] as const) bigger[key].set(series[key]);
        const biggerLines = new Float64Array(series.length * 2);
        biggerLines.set(lineOf);
        series = bigger;
        lineOf = biggerLines;
      }
      series.time[n] = values[0]!;
      series.open[n] = values[1]!;
      series.high[n] = values[2]!;
      series.low[n] = values[3]!;
      series.close[n] = values[4]!;
      series.volume[n] = values[5]!;
      lineOf[n] = line;
      n++;
    },
    /** The rows sorted by time, with the line each came from. */
    sorted(): { series: CandleSeries; lines: Float64Array } {
      const order = Array.from({ length: n }, (_, i) => i);
      let ascending = true;
      for (let i = 1; i < n && ascending; i++) ascending = series.time[i - 1]! <= series.time[i]!;
      if (!ascending) order.sort((a, b) => series.time[a]! - series.time[b]!);
      const out = allocateSeries(symbol, timeframe, n);
      const outLines = new Float64Array(n);
      order.forEach((from, to) => {
        copyCandle(series, from, out, to);
        outLines[to] = lineOf[from]!;
      });
      return { series: out, lines: outLines };
    },
  };
}

/** The problem with one parsed row, or null. */
function checkRow(values: number[], timeframe: TimeframeName, timeframeMs: number): string | null {
  const [time, open, high, low, close, volume] = values as [number, number, number, number, number, number];
  if (!Number.isFinite(time)) return 'time is not epoch milliseconds, epoch seconds or an ISO 8601 date';
  const names = ['open', 'high', 'low', 'close', 'volume'];
  for (let k = 1; k < 6; k++) if (!Number.isFinite(values[k])) return `${names[k - 1]} is not a number`;
  if (open <= 0 || high <= 0 || low <= 0 || close <= 0) return 'prices must be positive';
  if (volume < 0) return 'volume must not be negative';
  if (high < low) return `high ${high} is below low ${low}`;
  if (high < Math.max(open, close)) return `high ${high} is below open or close`;
  if (low > Math.min(open, close)) return `low ${low} is above open or close`;
  if (time % timeframeMs !== 0) return `time ${new Date(time).toISOString()} is not aligned to the ${timeframe} timeframe`;
  return null;
}

/**
 * Imports candles from CSV text into the Store's candle cache under `source` (default `csv`).
 * The text is RFC 4180 CSV (quoted fields, CRLF or LF, a UTF-8 BOM; blank lines skipped). With
 * a header, its names place the columns, in any order, and other columns are ignored (`time`
 * also as `timestamp`, `date`, `open_time`, ...: see HEADER_NAMES); without one, a row is
 * `time,open,high,low,close,volume` or one of Binance's 12-column klines (`open_time,open,
 * high,low,close,volume,close_time,...`). `time` is epoch seconds, ms, µs or ns, or ISO 8601
 * (UTC unless a zone is given). Rows may come in any order. Every row is checked (numbers, positive prices,
 * high >= low and the body, volume >= 0, time aligned to the timeframe, no time twice); if any
 * is wrong nothing is written and the error (VALIDATION_FAILED) lists the first problems with
 * their line numbers. Rows replace cached candles with the same time; days from the first to
 * the last row without a row are recorded as known to be empty, so the range counts as covered.
 */
export async function importCandlesCsv(options: ImportCandlesCsvOptions): Promise<ImportCandlesCsvResult> {
  const { store, symbol, timeframe } = options;
  const source = options.source ?? 'csv';
  const maxRows = options.maxRows ?? 5_000_000;
  if (!isTimeframe(timeframe)) {
    throw new StratboxError('VALIDATION_FAILED', `Invalid timeframe "${String(timeframe)}": expected one of ${Object.keys(TIMEFRAME_MS).join(', ')}`, [
      { path: 'timeframe', message: 'Unknown timeframe' },
    ]);
  }
  if (!symbol) throw new StratboxError('VALIDATION_FAILED', 'A symbol is required', [{ path: 'symbol', message: 'Required' }]);
  const timeframeMs = TIMEFRAME_MS[timeframe];
  const problems: ValidationProblem[] = [];
  let problemCount = 0;
  const report = (line: number, message: string) => {
    problemCount++;
    if (problems.length < MAX_PROBLEMS) problems.push({ path: `line ${line}`, message });
  };

  const rows = createColumns(symbol, timeframe);
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
        layout = HEADERLESS;
      }
      const badWidth = widthProblem(layout, cells.length);
      if (badWidth) {
        report(line, badWidth);
        continue;
      }
      const values = layout.columns.map((column, k) => {
        const cell = cells[column]!;
        return k === 0 ? parseCsvTime(cell) : cell === '' ? Number.NaN : Number(cell);
      });
      const problem = checkRow(values, timeframe, timeframeMs);
      if (problem) {
        report(line, problem);
        continue;
      }
      if (rows.length >= maxRows) {
        throw new StratboxError('VALIDATION_FAILED', `The CSV has more than ${maxRows} rows; split it into several imports`, [
          { path: `line ${line}`, message: `More than ${maxRows} rows` },
        ]);
      }
      rows.push(line, values);
    }
  } catch (error) {
    if (!(error instanceof CsvSyntaxError)) throw error;
    report(error.line, error.message);
  }

  const { series, lines: lineOf } = rows.sorted();
  for (let i = 1; i < series.length; i++) {
    if (series.time[i] === series.time[i - 1]) {
      report(
        Math.max(lineOf[i]!, lineOf[i - 1]!),
        `time ${new Date(series.time[i]!).toISOString()} appears twice (also line ${Math.min(lineOf[i]!, lineOf[i - 1]!)})`,
      );
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
  if (series.length === 0) {
    throw new StratboxError('VALIDATION_FAILED', 'The CSV holds no candles', [{ path: 'csv', message: 'No rows' }]);
  }

  const firstMs = series.time[0]!;
  const lastMs = series.time[series.length - 1]!;
  const days = daysBetween(Math.floor(firstMs / DAY_MS) * DAY_MS, lastMs + 1);
  await createStoreCandleCache(store).write(source, sliceSeries(series, 0, series.length), { merge: true, days });
  return { imported: series.length, firstTime: new Date(firstMs).toISOString(), lastTime: new Date(lastMs).toISOString() };
}

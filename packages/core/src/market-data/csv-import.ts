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
const MAX_PROBLEMS = 10;
/** Below this, a numeric time is in seconds (1e11 s is in the year 5138; 1e11 ms is in 1973). */
const SECONDS_LIMIT = 1e11;
const ZONE_RE = /(Z|[+-]\d{2}:?\d{2})$/i;

/** A time cell as epoch ms: epoch milliseconds, epoch seconds, or ISO 8601 (UTC unless it names a zone). */
export function parseCsvTime(cell: string): number {
  if (/^-?\d+(\.\d+)?$/.test(cell)) {
    const n = Number(cell);
    return Math.abs(n) < SECONDS_LIMIT ? Math.round(n * 1000) : n;
  }
  if (!/^\d{4}-\d{2}-\d{2}/.test(cell)) return Number.NaN;
  let iso = cell.replace(' ', 'T');
  if (iso.length > 10 && !ZONE_RE.test(iso)) iso += 'Z';
  return Date.parse(iso);
}

async function* lines(csv: string | AsyncIterable<string>): AsyncGenerator<string> {
  if (typeof csv === 'string') {
    yield* csv.split(/\r?\n/);
    return;
  }
  let rest = '';
  for await (const piece of csv) {
    const text = rest + piece;
    const parts = text.split(/\r?\n/);
    rest = parts.pop() ?? '';
    yield* parts;
  }
  yield rest;
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
 * Each line is `time,open,high,low,close,volume`; `time` is epoch ms, epoch seconds or ISO 8601
 * (UTC unless a zone is given); a first line that is not a candle (a header) is skipped, as are
 * blank lines. Rows may come in any order. Every row is checked (numbers, positive prices,
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
  let lineNumber = 0;
  let seenContent = false;
  for await (const raw of lines(options.csv)) {
    lineNumber++;
    const line = raw.trim();
    if (line === '') continue;
    const cells = line.split(',').map((c) => c.trim());
    const first = !seenContent;
    seenContent = true;
    if (first && Number.isNaN(parseCsvTime(cells[0] ?? '')) && /[a-z]/i.test(line)) continue; // a header
    if (cells.length !== 6) {
      report(lineNumber, `expected 6 values (time,open,high,low,close,volume), found ${cells.length}`);
      continue;
    }
    const values = cells.map((cell, k) => (k === 0 ? parseCsvTime(cell) : cell === '' ? Number.NaN : Number(cell)));
    const problem = checkRow(values, timeframe, timeframeMs);
    if (problem) {
      report(lineNumber, problem);
      continue;
    }
    if (rows.length >= maxRows) {
      throw new StratboxError('VALIDATION_FAILED', `The CSV has more than ${maxRows} rows; split it into several imports`, [
        { path: `line ${lineNumber}`, message: `More than ${maxRows} rows` },
      ]);
    }
    rows.push(lineNumber, values);
  }

  const { series, lines: lineOf } = rows.sorted();
  for (let i = 1; i < series.length; i++) {
    if (series.time[i] === series.time[i - 1]) {
      report(Math.max(lineOf[i]!, lineOf[i - 1]!), `time ${new Date(series.time[i]!).toISOString()} appears twice (also line ${Math.min(lineOf[i]!, lineOf[i - 1]!)})`);
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

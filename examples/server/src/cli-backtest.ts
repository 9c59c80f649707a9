import { readFileSync } from 'node:fs';
import { basename, extname } from 'node:path';
import WebSocket from 'ws';
import { createStratboxClient, type StratboxClient } from '@stratbox/client';
import { createProgress, formatTable, printResult } from './cli-output.js';

/*
 * `stratbox backtest`: the path of a user of a running service. The strategy is created or
 * updated by name through the API, the backtest queued there, its progress followed on the
 * WebSocket channel backtest:<id>:progress with the typed client, and its result read back.
 */

export interface BacktestCommandOptions {
  url: string;
  apiKey: string;
  name?: string;
  symbols: string[];
  from?: string;
  to?: string;
  timeframe?: string;
  marketType?: 'SPOT' | 'LINEAR';
  param: string[];
  capital?: number;
  leverage?: number;
  json: boolean;
  progress: boolean;
}

type Detail = Awaited<ReturnType<StratboxClient['backtests']['get']>>;
type CreateBody = Parameters<StratboxClient['backtests']['create']>[0]['body'];

const DAY_MS = 86_400_000;
/** Statuses after which a backtest changes no more (its last progress event carries one). */
const FINAL = new Set(['completed', 'failed', 'cancelled']);
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** `k=v` pairs as a map; a pair without `=` is an error. */
function parseParams(pairs: string[]): Record<string, string> {
  const params: Record<string, string> = {};
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new Error(`--param ${pair}: expected key=value`);
    params[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  return params;
}

/** The strategy named `name` (its id), created from `source` or updated to it (a new version only when the source changed). */
async function upsertStrategy(
  client: StratboxClient,
  name: string,
  source: string,
  marketType: BacktestCommandOptions['marketType'],
): Promise<{ id: string; version: number; created: boolean }> {
  let cursor: string | undefined;
  do {
    const page = await client.strategies.list({ query: { limit: 200, ...(cursor ? { cursor } : {}) } });
    const found = page.strategies.find((s) => s.name === name);
    if (found) {
      const updated = await client.strategies.update({ params: { id: found.id }, body: { source } });
      return { id: updated.id, version: updated.version, created: false };
    }
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  const created = await client.strategies.create({ body: { name, source, ...(marketType ? { marketType } : {}) } });
  return { id: created.id, version: created.version, created: true };
}

/**
 * Waits for the backtest to end, reporting progress from its channel. The state is read once
 * the subscription is acknowledged, so a run that ended before is not waited for forever.
 */
function followBacktest(client: StratboxClient, id: string, enabled: boolean): Promise<void> {
  const progress = createProgress(`backtest ${id}`, 'bars', enabled);
  return new Promise<void>((resolve, reject) => {
    let done = false;
    const finish = (error?: unknown) => {
      if (done) return;
      done = true;
      unsubscribe();
      progress.stop();
      if (error) reject(error);
      else resolve();
    };
    const unsubscribe = client.backtests.watch(
      id,
      (event) => {
        if (event.totalBars > 0) progress.update(event.processedBars, event.totalBars);
        if (FINAL.has(event.status)) finish();
      },
      {
        onError: (error) => finish(error),
        onSubscribed: () => {
          client.backtests.get({ params: { id } }).then((state) => {
            if (FINAL.has(state.status)) finish();
          }, finish);
        },
      },
    );
  });
}

function percent(value: number | null): string {
  return value === null ? '-' : `${(value * 100).toFixed(2)}%`;
}
function number(value: number | null, digits = 2): string {
  return value === null ? '-' : value.toFixed(digits);
}

type MetricValues = NonNullable<Detail['metrics']>;

/** Metric rows: a label and a formatter, in the order printed. */
const METRIC_ROWS: Array<[string, (m: Omit<MetricValues, 'perSymbol'>) => string]> = [
  ['total return', (m) => percent(m.totalReturn)],
  ['CAGR', (m) => percent(m.cagr)],
  ['max drawdown', (m) => percent(m.maxDrawdown)],
  ['max drawdown days', (m) => (m.maxDrawdownDuration === null ? '-' : (m.maxDrawdownDuration / DAY_MS).toFixed(1))],
  ['Sharpe', (m) => number(m.sharpe)],
  ['Sortino', (m) => number(m.sortino)],
  ['Calmar', (m) => number(m.calmar)],
  ['win rate', (m) => percent(m.winRate)],
  ['profit factor', (m) => number(m.profitFactor)],
  ['expectancy', (m) => number(m.expectancy)],
  ['trades', (m) => String(m.tradeCount)],
  ['exposure', (m) => percent(m.exposure)],
  ['fees paid', (m) => number(m.feesPaid)],
  ['buy and hold', (m) => percent(m.buyAndHoldReturn)],
];

/** What the run was, then its metrics: one column for the whole run, and one per symbol when there are several. */
function resultText(detail: Detail, strategyName: string): string {
  const metrics = detail.metrics!;
  const symbols = detail.symbols.length > 1 ? detail.symbols : [];
  const about = formatTable([
    ['backtest', detail.id],
    ['strategy', `${strategyName} v${detail.strategyVersion}`],
    ['range', `${detail.startDate}..${detail.endDate} ${detail.timeframe} ${detail.marketType} ${detail.symbols.join(' ')}`],
  ]);
  const rows: string[][] = [['metric', 'all', ...symbols]];
  for (const [label, format] of METRIC_ROWS) {
    rows.push([label, format(metrics), ...symbols.map((s) => (metrics.perSymbol[s] ? format(metrics.perSymbol[s]) : '-'))]);
  }
  return `${about}\n${formatTable(rows, true)}`;
}

export async function runBacktestCommand(file: string, options: BacktestCommandOptions): Promise<void> {
  const source = readFileSync(file, 'utf8');
  const name = options.name ?? basename(file, extname(file));
  const to = options.to ?? day(Date.now() - DAY_MS);
  const from = options.from ?? day(Date.parse(`${to}T00:00:00Z`) - 89 * DAY_MS);
  const client = createStratboxClient({ baseUrl: options.url, apiKey: options.apiKey, WebSocket, realtime: { reconnect: false } });
  try {
    const strategy = await upsertStrategy(client, name, source, options.marketType);
    process.stderr.write(`strategy ${name} (${strategy.id}) ${strategy.created ? 'created' : 'at'} version ${strategy.version}\n`);
    const body: CreateBody = {
      strategyId: strategy.id,
      symbols: options.symbols,
      startDate: from,
      endDate: to,
      params: parseParams(options.param),
      ...(options.timeframe ? { timeframe: options.timeframe as NonNullable<CreateBody['timeframe']> } : {}),
      ...(options.marketType ? { marketType: options.marketType } : {}),
      ...(options.capital !== undefined ? { initialCapital: options.capital } : {}),
      ...(options.leverage !== undefined ? { leverage: options.leverage } : {}),
    };
    const queued = await client.backtests.create({ body });
    process.stderr.write(`backtest ${queued.id} ${queued.status}\n`);
    const cancel = () => {
      process.stderr.write(`\ncancelling backtest ${queued.id}\n`);
      client.backtests.cancel({ params: { id: queued.id } }).finally(() => process.exit(130));
    };
    process.once('SIGINT', cancel);
    await followBacktest(client, queued.id, options.progress);
    process.off('SIGINT', cancel);
    const detail = await client.backtests.get({ params: { id: queued.id } });
    if (detail.status !== 'completed' || !detail.metrics) {
      if (options.json) printResult(true, detail, () => '');
      throw new Error(`backtest ${detail.id} ${detail.status}${detail.error ? `: ${detail.error.code} ${detail.error.message}` : ''}`);
    }
    printResult(options.json, detail, () => resultText(detail, name));
  } finally {
    client.realtime.close();
  }
}

import { createReadStream, statSync } from 'node:fs';
import { Command, InvalidArgumentError, Option } from 'commander';
import {
  createJsonLogger,
  createSilentLogger,
  createStratbox,
  downloadCandles,
  importCandlesCsv,
  importFundingCsv,
  isTimeframe,
  type TimeframeName,
} from '@stratbox/core';
import { runBacktestCommand, type BacktestCommandOptions } from './cli-backtest.js';
import { notifyTest, type NotifyTestOptions } from './cli-notify.js';
import { createProgress, formatTable, printResult } from './cli-output.js';
import { readConfig } from './config.js';
import { parseEnv, type ServerEnv } from './env.js';
import { createExchangeAt } from './exchange-urls.js';
import { loadMasterKey } from './master-key.js';
import { readNotificationConfig } from './notification-config.js';
import { openStore } from './open-store.js';

/*
 * The `stratbox` command (bin of this package; `pnpm cli` in the repository). Commands that
 * work on the service's data open the Store of DATA_DIR or DATABASE_URL, as the server does;
 * `backtest` talks to a running service over HTTP and WebSocket.
 */

/** Warnings (e.g. a data file's mode tightened) go to stderr: stdout carries the command's result. */
const warnings = createJsonLogger({ level: 'warn', write: (line) => process.stderr.write(line + '\n') });

/** The parsed environment, read on first use (so that `--help` works whatever it holds), once. */
let parsedEnv: ServerEnv | undefined;
const env = (): ServerEnv => (parsedEnv ??= parseEnv(process.env));

/** A file smaller than this is imported without a progress report. */
const PROGRESS_MIN_BYTES = 1 << 20;

function timeframe(value: string): TimeframeName {
  if (!isTimeframe(value)) throw new InvalidArgumentError('Not a timeframe (1m, 5m, 15m, 1h, 4h, 1d, ...).');
  return value;
}

/** Runs `work` on the Store of DATA_DIR / DATABASE_URL and closes it. */
async function withStore<T>(work: (store: Awaited<ReturnType<typeof openStore>>) => Promise<T>): Promise<T> {
  const store = await openStore(readConfig(env()), warnings);
  try {
    return await work(store);
  } finally {
    await store.close();
  }
}

async function createUser(name: string): Promise<void> {
  await withStore(async (store) => {
    const stratbox = createStratbox({ store, logger: createSilentLogger() });
    try {
      process.stdout.write(JSON.stringify(await stratbox.users.createUser(name)) + '\n');
    } finally {
      await stratbox.close();
    }
  });
}

/**
 * Sends a channel's test on the server's data, with its master key (which opens the channel's
 * sealed target) and notification settings (STRATBOX_NOTIFY_ALLOW_HOSTS...), as the server would.
 */
async function notify(channelId: string, options: NotifyTestOptions): Promise<void> {
  const config = readConfig(env());
  await withStore(async (store) => {
    const stratbox = createStratbox({
      store,
      logger: createSilentLogger(),
      masterKey: loadMasterKey(config, env(), warnings),
      notifications: readNotificationConfig(env(), true),
    });
    try {
      process.exitCode = await notifyTest(stratbox, channelId, options);
    } finally {
      await stratbox.close();
    }
  });
}

/** The file's text in pieces, reporting progress (in MB) when it is large enough and progress is on. */
function readWithProgress(file: string, label: string, showProgress: boolean) {
  const size = statSync(file).size;
  const progress = createProgress(label, 'MB', showProgress && size >= PROGRESS_MIN_BYTES);
  const mb = (bytes: number) => Math.round(bytes / 1e5) / 10;
  async function* pieces(): AsyncGenerator<string> {
    let read = 0;
    for await (const piece of createReadStream(file, { encoding: 'utf8' }) as AsyncIterable<string>) {
      read += Buffer.byteLength(piece);
      progress.update(mb(read), mb(size));
      yield piece;
    }
  }
  return { pieces, done: () => progress.stop() };
}

async function importCsv(
  symbol: string,
  tf: TimeframeName | undefined,
  file: string | undefined,
  options: { json: boolean; progress: boolean; funding?: string },
): Promise<void> {
  if (options.funding !== undefined) {
    if (tf !== undefined || file !== undefined) {
      throw new InvalidArgumentError('With --funding <file>, give only the symbol: import candles and funding rates in two commands.');
    }
    const fundingFile = options.funding;
    const reading = readWithProgress(fundingFile, `import ${fundingFile}`, options.progress);
    const result = await withStore((store) => importFundingCsv({ store, symbol, csv: reading.pieces() })).finally(reading.done);
    printResult(options.json, result, () =>
      formatTable([
        ['imported', `${result.imported} funding rates`],
        ['first', result.firstTime],
        ['last', result.lastTime],
      ]),
    );
    return;
  }
  if (tf === undefined || file === undefined) {
    throw new InvalidArgumentError('Give <timeframe> <file> to import candles, or --funding <file> to import funding rates.');
  }
  const reading = readWithProgress(file, `import ${file}`, options.progress);
  const result = await withStore((store) => importCandlesCsv({ store, symbol, timeframe: tf, csv: reading.pieces() })).finally(reading.done);
  printResult(options.json, result, () =>
    formatTable([
      ['imported', `${result.imported} candles`],
      ['first', result.firstTime],
      ['last', result.lastTime],
    ]),
  );
}

async function download(
  symbol: string,
  tf: TimeframeName,
  from: string,
  to: string,
  options: { exchange: string; json: boolean; progress: boolean },
): Promise<void> {
  const exchange = await createExchangeAt(env().STRATBOX_EXCHANGE_URLS, options.exchange, {}, (url) =>
    warnings.warn('Exchange API moved by STRATBOX_EXCHANGE_URLS', { exchange: options.exchange, url }),
  );
  const progress = createProgress(`download ${symbol} ${tf}`, 'days', options.progress);
  const result = await withStore((store) =>
    downloadCandles({
      store,
      exchange,
      symbol,
      timeframe: tf,
      startDate: from,
      endDate: to,
      logger: warnings,
      onProgress: (p) => progress.update(p.doneDays, p.days),
    }),
  ).finally(() => progress.stop());
  printResult(options.json, result, () =>
    formatTable([
      ['source', result.source],
      ['days', String(result.days)],
      ['cached', `${result.cachedDays} days (skipped)`],
      ['downloaded', `${result.downloadedDays} days`],
      ['candles', String(result.candles)],
    ]),
  );
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

function createProgram(): Command {
  const program = new Command('stratbox')
    .description(
      "Stratbox from the terminal. Commands that read or write data use the server's settings: DATA_DIR " +
        '(SQLite; default ./.stratbox, or examples/server/.stratbox through `pnpm cli` in the repository) or DATABASE_URL (PostgreSQL).',
    )
    .showHelpAfterError()
    .configureHelp({ showGlobalOptions: true });
  const json = () => new Option('--json', 'print the result as JSON instead of a table');
  const noProgress = () => new Option('--no-progress', 'no progress report on stderr');

  program
    .command('create-user')
    .summary('create a user and print its id and API key as JSON')
    .description('Create a user and print {"userId","apiKey"} as one JSON line. The API key is shown once; only its hash is stored.')
    .argument('<name>', 'the user name')
    .action(createUser);

  program
    .command('import-csv')
    .summary('import candles, or funding rates (--funding), from a CSV file (any column order, quoted fields, Binance files)')
    .description(
      'Import candles from a CSV file into the candle cache (source "csv"), used by backtests and charts for the ranges it covers. ' +
        'Columns are placed by a header, in any order (time/timestamp/open_time, open, high, low, close, volume; others ignored); ' +
        "without one, rows are time,open,high,low,close,volume or Binance's 12-column klines. Quoted fields are read. " +
        'Times: epoch s, ms, µs or ns, or ISO 8601 (UTC unless a zone is given). Nothing is imported if a row is invalid.\n\n' +
        'With --funding <file> (and no timeframe), import the funding rates of a perpetual instead, into the funding cache (source "csv"), ' +
        'paid by LINEAR backtests over the ranges it covers: columns time (or timestamp, funding_time, calc_time) and rate (or funding_rate, ' +
        "last_funding_rate), by a header in any order (Binance's monthly fundingRate files as they are), or time,rate without one. " +
        'A rate is a fraction per funding event: 0.0001 is 0.01 %.',
    )
    .argument('<symbol>', 'market symbol, e.g. BTC/USDT:USDT')
    .argument('[timeframe]', 'candle timeframe, e.g. 1h (not with --funding)', timeframe)
    .argument('[file]', 'the CSV file of candles (not with --funding)')
    .option('--funding <file>', 'import this CSV file of funding rates (time,rate) instead of candles')
    .addOption(json())
    .addOption(noProgress())
    .addHelpText(
      'after',
      '\nExamples:\n  stratbox import-csv BTC/USDT:USDT 1h ./BTCUSDT-1h-2024-01.csv\n  stratbox import-csv BTC/USDT:USDT --funding ./BTCUSDT-fundingRate-2024-01.csv',
    )
    .action(importCsv);

  program
    .command('download')
    .summary('download candles from an exchange through ccxt into the cache (resumable)')
    .description(
      'Download closed candles of a range from an exchange through ccxt into the candle cache (source "ccxt:<exchange>"). ' +
        'Resumable: days already cached are skipped, so an interrupted download goes on where it stopped.',
    )
    .argument('<symbol>', 'market symbol as ccxt names it, e.g. BTC/USDT:USDT')
    .argument('<timeframe>', 'candle timeframe, e.g. 1h', timeframe)
    .argument('<from>', 'first UTC day, YYYY-MM-DD')
    .argument('<to>', 'last UTC day, YYYY-MM-DD (included)')
    .requiredOption('--exchange <id>', 'ccxt exchange id, e.g. binance, binanceusdm, bybit')
    .addOption(json())
    .addOption(noProgress())
    .addHelpText('after', '\nExample:\n  stratbox download BTC/USDT:USDT 1h 2024-01-01 2024-06-30 --exchange binanceusdm')
    .action(download);

  program
    .command('backtest')
    .summary('backtest a strategy file on a running service and print its metrics')
    .description(
      'Create or update a strategy from a file (by name), backtest it on a running Stratbox service, show its progress from the ' +
        'WebSocket channel backtest:<id>:progress and print its metrics. Ctrl-C cancels the backtest.',
    )
    .argument('<file>', 'strategy source (.js or .ts)')
    .addOption(new Option('--url <url>', 'the service, e.g. http://localhost:3000').env('STRATBOX_URL').makeOptionMandatory())
    .addOption(new Option('--api-key <key>', 'an API key of the user (from create-user)').env('STRATBOX_API_KEY').makeOptionMandatory())
    .option('--name <name>', 'strategy name (default: the file name without extension)')
    .option('--symbols <symbols...>', 'symbols to trade', ['BTC/USDT:USDT'])
    .option('--from <day>', 'first UTC day, YYYY-MM-DD (default: 90 days before --to)')
    .option('--to <day>', 'last UTC day, YYYY-MM-DD (default: yesterday)')
    .option('--timeframe <tf>', "candle timeframe (default: the strategy's meta.timeframe, else 1h)", timeframe)
    .addOption(new Option('--market-type <type>', 'market type').choices(['SPOT', 'LINEAR']))
    .option('--param <key=value>', 'a strategy parameter (repeat for several)', collect, [])
    .option('--capital <amount>', 'initial capital', Number)
    .option('--leverage <n>', 'leverage (1 for SPOT)', Number)
    .addOption(json())
    .addOption(noProgress())
    .addHelpText(
      'after',
      '\nExample:\n  STRATBOX_API_KEY=sbx_... stratbox backtest ./sma.ts --url http://localhost:3000 --symbols BTC/USDT:USDT ETH/USDT:USDT --from 2025-01-01 --to 2025-03-31 --param fast=10',
    )
    .action((file: string, options: BacktestCommandOptions) => runBacktestCommand(file, options));

  const notifyCommand = program.command('notify').summary('notification channels: send a test').description('Notification channels (docs/notifications.md).');
  notifyCommand
    .command('test')
    .summary("send a channel's test event now and print how its delivery went")
    .description(
      'Send a notification.test event to one channel now, through the same service as POST /api/notification-channels/:id/test, on the ' +
        "server's data (DATA_DIR or DATABASE_URL), with its master key and notification settings (STRATBOX_NOTIFY_ALLOW_HOSTS, " +
        'STRATBOX_TELEGRAM_API_BASE, STRATBOX_DISCORD_WEBHOOK_BASE). Prints the delivery: status, attempts, HTTP status and error. ' +
        "Name the channel's owner with --user <usr_id> (from create-user) or --api-key <key>. Exit code 0 when delivered, 1 otherwise.",
    )
    .argument('<channel>', 'the channel id, e.g. nch_...')
    .option('--user <id>', "the channel owner's user id (usr_...)")
    .addOption(new Option('--api-key <key>', 'an API key of the channel owner, instead of --user').env('STRATBOX_API_KEY'))
    .addOption(json())
    .addHelpText('after', '\nExamples:\n  stratbox notify test nch_abc123 --user usr_def456\n  STRATBOX_API_KEY=sbx_... stratbox notify test nch_abc123 --json')
    .action(notify);

  return program;
}

/** Prints an error (with its details, as a StratboxError or a client error carries them) and returns the exit code. */
function reportError(error: unknown): number {
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`error: ${message}\n`);
  const details = (error as { details?: unknown } | null)?.details;
  if (Array.isArray(details)) {
    for (const problem of details as Array<{ path?: unknown; message?: unknown }>) {
      if (problem && typeof problem === 'object' && 'message' in problem) process.stderr.write(`  ${String(problem.path ?? '')}: ${String(problem.message)}\n`);
    }
  }
  return 1;
}

/**
 * Exits once stdout and stderr are flushed: a pipe may take a large result (a backtest's JSON)
 * in several writes, and exiting at once would cut it. Exiting at all ends what a command may
 * leave open (an exchange client's sockets).
 */
function exitWhenFlushed(code: number): void {
  process.stdout.write('', () => process.stderr.write('', () => process.exit(code)));
}

createProgram()
  .parseAsync(process.argv)
  .then(
    () => exitWhenFlushed(Number(process.exitCode ?? 0)),
    (error: unknown) => exitWhenFlushed(reportError(error)),
  );

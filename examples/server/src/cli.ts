import { createReadStream } from 'node:fs';
import { createJsonLogger, createSilentLogger, createStratbox, importCandlesCsv, isStratboxError } from '@stratbox/core';
import { readConfig } from './config.js';
import { openStore } from './open-store.js';

const USAGE = `Usage: pnpm cli <command>

Commands:
  create-user <name>   Create a user and print {"userId","apiKey"} as one JSON line.
                       The API key is shown once; only its hash is stored.
  import-csv <symbol> <timeframe> <file>
                       Import candles from a CSV file (lines time,open,high,low,close,volume;
                       time as epoch ms, epoch seconds or ISO 8601 UTC; optional header line)
                       and print {"imported","firstTime","lastTime"}. Backtests and charts then
                       use them (source "csv") for ranges they cover. Nothing is imported if a
                       row is invalid. Example: import-csv BTC/USDT:USDT 1h ./btc-1h.csv

Environment: DATA_DIR (SQLite, default ./.stratbox) or DATABASE_URL (PostgreSQL), as for the server.`;

/** Warnings (e.g. a data file's mode tightened) go to stderr: stdout carries the command's JSON. */
const warnings = createJsonLogger({ level: 'warn', write: (line) => process.stderr.write(line + '\n') });

async function main(argv: string[]): Promise<number> {
  const [command, ...args] = argv;
  if (command === 'import-csv' && args.length === 3 && args.every(Boolean)) return importCsv(args[0]!, args[1]!, args[2]!);
  if (command !== 'create-user' || args.length !== 1 || !args[0]) {
    process.stderr.write(USAGE + '\n');
    return command === undefined || command === 'help' || command === '--help' ? 0 : 2;
  }
  const store = await openStore(readConfig(), warnings);
  const stratbox = createStratbox({ store, logger: createSilentLogger() });
  try {
    const created = await stratbox.users.createUser(args[0]);
    process.stdout.write(JSON.stringify(created) + '\n');
    return 0;
  } finally {
    await stratbox.close();
  }
}

/** `import-csv`: streams the file into the candle cache; an invalid file prints each problem. */
async function importCsv(symbol: string, timeframe: string, file: string): Promise<number> {
  const store = await openStore(readConfig(), warnings);
  try {
    const csv = createReadStream(file, { encoding: 'utf8' }) as AsyncIterable<string>;
    const result = await importCandlesCsv({ store, symbol, timeframe: timeframe as Parameters<typeof importCandlesCsv>[0]['timeframe'], csv });
    process.stdout.write(JSON.stringify(result) + '\n');
    return 0;
  } catch (error) {
    if (!isStratboxError(error)) throw error;
    process.stderr.write(`error: ${error.message}\n`);
    if (Array.isArray(error.details)) {
      for (const problem of error.details as Array<{ path: string; message: string }>) process.stderr.write(`  ${problem.path}: ${problem.message}\n`);
    }
    return 1;
  } finally {
    await store.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);

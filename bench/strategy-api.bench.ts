/**
 * Strategy API benchmark: bars per second of the reference SMA-crossover strategy beside a
 * strategy that reads `ctx.history(symbol, 100)` and a 4h indicator on every 1m candle, through
 * the whole engine (sandbox child, QuickJS), runs alternating in one process.
 *
 *   cd bench && node --conditions=@stratbox/source --import tsx strategy-api.bench.ts
 *   (BARS=n for another size)
 *
 * Target (issue): the history strategy keeps at least half the reference speed.
 */
import { availableParallelism, loadavg } from 'node:os';
import { createSandboxPool } from '../packages/core/src/backtests/engine/backtest-pool.js';
import { HISTORY_STRATEGY, REFERENCE_STRATEGY, syntheticCandles } from './synthetic-candles.js';

const BARS = Number(process.env.BARS ?? 1_000_000);
const ROUNDS = 3;
const FEES = { maker: 0.0002, taker: 0.0005 };

/** The same, plus a loop over the 100 closes in the strategy (the highest close): what a per-candle scan of the window costs in the sandbox. */
const SCAN_STRATEGY = HISTORY_STRATEGY.replace(
  'const momentum = close[h.length - 1] - close[0];',
  'let hi = -Infinity; for (let i = 0; i < h.length; i++) if (close[i] > hi) hi = close[i];\n  const momentum = close[h.length - 1] - hi * 0 - close[0];',
);

const fmt = (x: number) => Math.round(x).toLocaleString('en-US');

async function main() {
  console.log(
    `Stratbox strategy API bench: ${fmt(BARS)} one-minute candles, Node ${process.version}, ${availableParallelism()} CPUs, load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  const candles = { 'BTC/USDT:USDT': syntheticCandles(BARS) };
  const pool = createSandboxPool({ size: 1, cpuTimeMs: 300_000, rssLimitBytes: 3 * 1024 ** 3, maxOldSpaceSizeMb: 2048 });
  const strategies = { reference: REFERENCE_STRATEGY, history: HISTORY_STRATEGY, 'history + scan of 100': SCAN_STRATEGY };
  type Name = keyof typeof strategies;
  const names = Object.keys(strategies) as Name[];
  const runs = Object.fromEntries(names.map((n) => [n, [] as number[]])) as Record<Name, number[]>;
  const cpu = Object.fromEntries(names.map((n) => [n, [] as number[]])) as Record<Name, number[]>;
  const trades = Object.fromEntries(names.map((n) => [n, 0])) as Record<Name, number>;
  try {
    for (const source of Object.values(strategies))
      await pool.runBacktest({ source, candles: { 'BTC/USDT:USDT': syntheticCandles(20_000) }, fees: FEES, timeframe: '1m' });
    for (let round = 0; round < ROUNDS; round++) {
      for (const name of names) {
        const source = strategies[name];
        const t0 = performance.now();
        const r = await pool.runBacktest({ source, candles, fees: FEES, timeframe: '1m' });
        runs[name].push(performance.now() - t0);
        cpu[name].push(r.stats.cpuMs);
        trades[name] = r.trades.length;
      }
    }
  } finally {
    await pool.close();
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
  console.log('');
  console.log('| strategy | bars/s (median wall) | bars per child CPU-second (median) | trades |');
  console.log('|---|---:|---:|---:|');
  for (const name of names) {
    console.log(`| ${name} | ${fmt(BARS / (median(runs[name]) / 1000))} | ${fmt(BARS / (median(cpu[name]) / 1000))} | ${trades[name]} |`);
  }
  console.log('');
  for (const name of names.slice(1)) {
    const ratio = median(runs.reference) / median(runs[name]);
    const cpuRatio = median(cpu.reference) / median(cpu[name]);
    console.log(`${name} / reference: ${ratio.toFixed(2)}x wall, ${cpuRatio.toFixed(2)}x per child CPU-second${name === 'history' ? ' (target >= 0.50)' : ''}`);
  }
}

await main();

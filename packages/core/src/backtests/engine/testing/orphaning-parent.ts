/**
 * Test fixture: a host that starts a never-ending backtest in a sandbox child and prints
 * `busy <child pid>` once the child runs it. The orphan test SIGKILLs this process and checks
 * that the child does not outlive it.
 */
import { createSandboxPool } from '../backtest-pool.js';

const n = 100;
const column = (f: (i: number) => number) => Float64Array.from({ length: n }, (_, i) => f(i));
const pool = createSandboxPool({ size: 1, cpuTimeMs: 60_000 });
void pool
  .runBacktest({
    source: 'export function onCandle() { for (;;) {} }',
    candles: {
      'BTC/USDT': {
        time: column((i) => i * 60_000),
        open: column(() => 100),
        high: column(() => 101),
        low: column(() => 99),
        close: column(() => 100),
        volume: column(() => 1),
      },
    },
  })
  .catch(() => undefined);
const timer = setInterval(() => {
  const stats = pool.stats();
  if (stats.busy === 1 && stats.pids.length === 1) {
    process.stdout.write(`busy ${stats.pids[0]}\n`);
    clearInterval(timer);
  }
}, 20);

/**
 * Overfitting statistics benchmark: how long the deflated Sharpe ratio and the probability of
 * backtest overfitting (CSCV) take on the largest searches an optimization answers, the
 * durations the unit tests used to assert (packages/core/src/research/optimization-statistics.test.ts
 * now checks only what they compute). Two cases, each the median of RUNS runs:
 *
 * - 1,000 trials of 500 periods: S = 16 blocks, 12,870 splits (`overfittingStatistics`, sync);
 * - 100,000 trials of 64 periods: S = 10 blocks, 252 splits, within the split budget
 *   (`overfittingStatisticsAsync`, in time slices, as the optimization service calls it).
 *
 * Returns are seeded normal draws (the first trial with a small edge), as in the unit tests.
 *
 *   cd bench && node --conditions=@stratbox/source --import tsx optimization-statistics.bench.ts   (RUNS=n, default 3)
 *
 * Targets: a few seconds each on this 2-core machine (about 1.3 s for the 100,000-trial case).
 */
import { availableParallelism, loadavg } from 'node:os';
import { createRandom } from '../packages/core/src/engine/guest/determinism.js';
import { overfittingStatistics, overfittingStatisticsAsync, type TrialReturns } from '../packages/core/src/research/optimization-statistics.js';

const RUNS = Math.max(1, Number(process.env.RUNS ?? 3));

/** `count` trials of normal returns (sd 0.01), the first with mean `edge`, the others 0. */
function search(seed: number, count: number, periods: number, edge: number): TrialReturns[] {
  const random = createRandom(seed);
  const normal = () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
  return Array.from({ length: count }, (_, index) => ({
    index,
    returns: Float64Array.from({ length: periods }, () => (index === 0 ? edge : 0) + 0.01 * normal()),
    feasible: true,
  }));
}

/** The median duration in ms of RUNS calls of `run`, and what the last one answered. */
async function median<T>(run: () => T | Promise<T>): Promise<{ ms: number; answer: T }> {
  const times: number[] = [];
  let answer!: T;
  for (let i = 0; i < RUNS; i++) {
    const started = performance.now();
    answer = await run();
    times.push(performance.now() - started);
  }
  return { ms: times.sort((a, b) => a - b)[Math.floor(times.length / 2)]!, answer };
}

async function main() {
  console.log(
    `Stratbox overfitting statistics bench: median of ${RUNS} runs, Node ${process.version}, ${availableParallelism()} CPUs, load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  console.log('');
  console.log('| case | partitions | splits | ms |');
  console.log('|---|---:|---:|---:|');
  const cases = [
    { name: '1,000 trials x 500 periods (sync)', trials: search(5, 1000, 500, 0.002), run: overfittingStatistics },
    { name: '100,000 trials x 64 periods (async, sliced)', trials: search(8, 100_000, 64, 0), run: overfittingStatisticsAsync },
  ];
  for (const { name, trials, run } of cases) {
    const { ms, answer } = await median(() => run(trials, 0));
    console.log(`| ${name} | ${answer.pbo?.partitions ?? '-'} | ${answer.pbo?.combinations ?? '-'} | ${ms.toFixed(0)} |`);
  }
  console.log('');
  console.log('Targets: a few seconds each on this 2-core machine (about 1.3 s for 100,000 trials).');
}

await main();

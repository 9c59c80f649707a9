/**
 * Verified listings benchmark (issue 26): the CPU time one node spends to advance 1,000 listings'
 * forward records by one `1h` candle. One Stratbox on the memory store (its own verification loop
 * off; the bench drives one), the real QuickJS sandbox pool (default size), synthetic candles and
 * funding rates. BENCH_LISTINGS listings (default 1,000) of BENCH_SOURCES distinct strategies
 * (default 4) on BENCH_SYMBOL_SETS symbol sets (default 2), each with a ready record whose forward
 * record started BENCH_DAYS (default 90) days ago.
 *
 * A first round catches every record up (it stores 90 days of points); the clock then moves one
 * hour, and the measured round advances every record by that one candle: each record is re-run
 * over its forward history from its start (the fill and account model is the backtest's), with the
 * candles of a symbol set loaded once for all its records. Printed side by side for 1 listing and
 * for N: host CPU (this process: store, candles, metrics, encoding), sandbox CPU (the children, as
 * the runner meters it), wall time, and per listing.
 *
 *   cd bench && node --conditions=@stratbox/source --import tsx verification.bench.ts
 */
import { availableParallelism } from 'node:os';
import { createMemoryStore, createSandboxPool, createSandboxStrategyRunner, createSilentLogger, createStratbox, newId, type Clock } from '@stratbox/core';
import {
  createVerificationLoop,
  newVerificationRecord,
  resolveVerificationSettings,
  type VerificationRound,
} from '../packages/core/src/marketplace/verification/index.js';

const N = Number(process.env.BENCH_LISTINGS ?? 1_000);
const SOURCES = Number(process.env.BENCH_SOURCES ?? 4);
const SYMBOL_SETS = [['BTC/USDT:USDT'], ['ETH/USDT:USDT'], ['SOL/USDT:USDT'], ['BTC/USDT:USDT', 'ETH/USDT:USDT']].slice(
  0,
  Number(process.env.BENCH_SYMBOL_SETS ?? 2),
);
const DAYS = Number(process.env.BENCH_DAYS ?? 90);
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

const source = (k: number) => `export const meta = {
  timeframe: '1h',
  warmup: ${10 + k * 5},
  params: { fast: { type: 'int', default: ${3 + k} }, slow: { type: 'int', default: ${10 + k * 5} } },
};
export function onCandle(ctx, c) {
  const f = ctx.indicators.sma(c.symbol, ctx.params.fast);
  const s = ctx.indicators.sma(c.symbol, ctx.params.slow);
  if (f > s && !ctx.position(c.symbol)) ctx.buy(c.symbol, { size: 0.5 });
  if (f < s && ctx.position(c.symbol)) ctx.close(c.symbol);
}`;

let now = Date.parse('2025-06-01T00:00:30.000Z');
const clock: Clock = { now: () => new Date(now) };

async function setUp(listings: number) {
  const logger = createSilentLogger();
  const strategyRunner = createSandboxStrategyRunner(createSandboxPool({ cpuTimeMs: 60_000 }));
  const stratbox = createStratbox({ store: createMemoryStore(), logger, clock, strategyRunner, verification: { enabled: false } });
  const settings = resolveVerificationSettings();
  const deps = { store: stratbox.store, clock, logger, strategyRunner, marketData: stratbox.marketData, settings };
  const { userId: sellerId } = await stratbox.users.createUser('seller');
  const listedAt = new Date(now - DAYS * DAY).toISOString();
  const templates = [];
  for (let k = 0; k < SOURCES; k++) {
    const strategy = await stratbox.strategies.create(sellerId, { name: `s${k}`, description: '', source: source(k), marketType: 'LINEAR' });
    for (const symbols of SYMBOL_SETS) {
      templates.push(
        await newVerificationRecord(deps, { listingId: 'lst_x', sellerId, strategyId: strategy.id, strategyVersion: 1, symbols, timeframe: '1h', listedAt }),
      );
    }
  }
  for (let i = 0; i < listings; i++) {
    const template = templates[i % templates.length]!;
    const listingId = newId('listing');
    await stratbox.store.listings.insert({
      id: listingId,
      sellerId,
      strategyId: template.strategyId,
      strategyVersion: 1,
      name: `listing ${i}`,
      description: '',
      price: 0,
      tags: [],
      ratingSum: 0,
      reviewCount: 0,
      purchaseCount: 0,
      status: 'listed',
      createdAt: listedAt,
      updatedAt: listedAt,
      recordSummary: null,
    });
    // ready: the platform backtest is not what this measures
    await stratbox.store.verificationRecords.insert({ ...template, id: newId('verificationRecord'), listingId, status: 'ready' });
  }
  const loop = createVerificationLoop(deps);
  return { stratbox, loop };
}

interface Measured {
  round: VerificationRound;
  hostMs: number;
  wallMs: number;
}

async function measure(run: () => Promise<VerificationRound>): Promise<Measured> {
  const cpu = process.cpuUsage();
  const t0 = performance.now();
  const round = await run();
  const used = process.cpuUsage(cpu);
  return { round, hostMs: (used.user + used.system) / 1000, wallMs: performance.now() - t0 };
}

async function bench(listings: number) {
  const start = now;
  const { stratbox, loop } = await setUp(listings);
  const catchUp = await measure(() => loop.tick());
  now += HOUR;
  const oneCandle = await measure(() => loop.tick());
  await loop.close();
  await stratbox.close();
  now = start;
  return { listings, catchUp, oneCandle };
}

const f = (n: number) => n.toLocaleString('en', { maximumFractionDigits: 1 });
function line(label: string, listings: number, m: Measured) {
  const sandbox = m.round.computeMs;
  const total = sandbox + m.hostMs;
  return [
    label.padEnd(26),
    String(listings).padStart(6),
    String(m.round.forward.advanced).padStart(9),
    f(m.hostMs).padStart(10),
    f(sandbox).padStart(12),
    f(total).padStart(11),
    f(total / listings).padStart(12),
    f(m.wallMs).padStart(10),
    String(m.round.marketLoads).padStart(7),
  ].join(' ');
}

console.log(
  `Verification forward records: ${SOURCES} sources x ${SYMBOL_SETS.length} symbol sets, ${DAYS} days of forward history on 1h, ` +
    `sandbox pool of ${Math.max(1, availableParallelism() - 1)} on ${availableParallelism()} CPUs`,
);
const one = await bench(1);
const many = await bench(N);
console.log(
  [
    'round'.padEnd(26),
    'lists'.padStart(6),
    'advanced'.padStart(9),
    'host ms'.padStart(10),
    'sandbox ms'.padStart(12),
    'CPU ms'.padStart(11),
    'CPU ms/list'.padStart(12),
    'wall ms'.padStart(10),
    'loads'.padStart(7),
  ].join(' '),
);
for (const r of [one, many]) {
  console.log(line('catch-up (90 days)', r.listings, r.catchUp));
  console.log(line('one 1h candle', r.listings, r.oneCandle));
}
const perHour = many.oneCandle.round.computeMs + many.oneCandle.hostMs;
console.log(
  `\n${f(N)} listings advance by one 1h candle in ${f(perHour / 1000)} CPU-seconds ` +
    `(${f((perHour / 3_600_000) * 100)} % of one core per hour); one listing alone: ${f(one.oneCandle.round.computeMs + one.oneCandle.hostMs)} CPU ms; ` +
    `per listing at ${f(N)}: ${f(perHour / N)} ms vs ${f(one.oneCandle.round.computeMs + one.oneCandle.hostMs)} ms alone`,
);
process.exit(0);

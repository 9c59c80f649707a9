/**
 * Drift report benchmark (issue 27): what one drift report of a 30-day `1m` paper deployment costs
 * against a plain backtest of the same candles (the target: at most 1.5 times).
 *
 * One Stratbox on the memory store (no deployment runs, no drift refresh, no verification loop, no
 * backtest workers), the real QuickJS sandbox pool (default size), the default synthetic market
 * data. One LINEAR symbol, an SMA(120/480) cross on `1m` that trades a few times a day.
 *
 * The recording is synthesized, not recorded by a live run: running a paper deployment for 30 days
 * (43,200 candles) is not possible in a bench, and even on a fast clock would take hours. Instead
 * the bench inserts a user, the strategy, a paper credential and a stopped deployment record, runs
 * ONE backtest of the strategy over the window's candles with the order journal on (the paper
 * exchange runs the backtest's fill and account model, docs/drift.md "A paper deployment's gaps"),
 * and writes what a paper deployment would have recorded: every candle with the replay's equity at
 * its time (`recordCandle`, with the intents its `onCandle` made), `onOrder` intents
 * (`recordIntents`), one run with the start equity (`recordRun`), and one filled order record per
 * fill (average price, fee, `updatedAt` at the fill time). The engine's own exits and its
 * end-of-run close are not intents nor live orders, as for a real deployment.
 *
 * Measured in one run, alternating A B A B (BENCH_ROUNDS rounds, default 5; at least 3):
 *   A: a plain backtest of the same candles (the same warm-up, funding, fees and seed as the
 *      replay), `strategyRunner.run` with the journal off, as the owner's run;
 *   B: `stratbox.drift.report(userId, deploymentId)` over the whole recording (the default window),
 *      computed again each round: before each B round the bench sets the deployment's alert
 *      thresholds to another `minCorrelation` (0.8 and 0.79 by turns, outside the timing), so the
 *      stored report no longer answers (docs/drift.md, "Stored") and the whole window is loaded
 *      from the store, replayed and compared, as when a new candle was recorded.
 *   C: the same 30 days as a user's plain backtest through the service (`stratbox.backtests.create`,
 *      one in-process worker: queued, candles loaded, run, result stored, metered), wall time from
 *      create to completed: the same layers as B (A has none of them: no candles loaded, nothing
 *      stored or metered).
 * Printed for each: wall ms, sandbox CPU ms (the runner's `computeMs`, the report's `replay.cpuMs`),
 * host CPU ms (this process, `process.cpuUsage`: store, series, journal, comparison), their sum, the
 * ratio B/A per round, and the median ratios.
 *
 *   cd bench && node --conditions=@stratbox/source --import tsx drift.bench.ts
 *   BENCH_DAYS=30, BENCH_ROUNDS=5
 */
import { availableParallelism } from 'node:os';
import { createMemoryStore, createSandboxPool, createSandboxStrategyRunner, createSilentLogger, createStratbox, newId } from '@stratbox/core';
import type { RecordedIntent } from '../packages/core/src/drift/drift-types.js';
import type { BacktestRunInput } from '../packages/core/src/ports/strategy-runner.js';
import type { DeploymentRecord } from '../packages/core/src/ports/store.js';
import { loadBacktestFunding } from '../packages/core/src/backtests/load-backtest-funding.js';
import { allocateSeries, dayOf, sliceSeries } from '../packages/core/src/market-data/candle-series.js';
import { deploymentSeed } from '../packages/core/src/drift/deployment-seed.js';
import { newIntentId } from '../packages/core/src/deployments/drift-recorder.js';
import { resolveDriftSettings } from '../packages/core/src/drift/drift-settings.js';

const DAYS = Number(process.env.BENCH_DAYS ?? 30);
const ROUNDS = Math.max(3, Number(process.env.BENCH_ROUNDS ?? 5));
const SYMBOL = 'BTC/USDT:USDT';
const STEP = 60_000;
const FROM = Date.parse('2025-06-01T00:00:00.000Z');
const TO = FROM + DAYS * 86_400_000;
const CAPITAL = 10_000;
const WARMUP = 480;

const SOURCE = `export const meta = {
  timeframe: '1m',
  warmup: ${WARMUP},
  params: { fast: { type: 'int', default: 120 }, slow: { type: 'int', default: ${WARMUP} } },
};
export function onCandle(ctx, c) {
  const f = ctx.indicators.sma(c.symbol, ctx.params.fast);
  const s = ctx.indicators.sma(c.symbol, ctx.params.slow);
  if (f > s && !ctx.position(c.symbol)) ctx.buy(c.symbol, { size: 0.5 });
  if (f < s && ctx.position(c.symbol)) ctx.close(c.symbol);
}`;

const iso = (ms: number) => new Date(ms).toISOString();
const logger = createSilentLogger();
const strategyRunner = createSandboxStrategyRunner(createSandboxPool());
const stratbox = createStratbox({
  store: createMemoryStore(),
  logger,
  strategyRunner,
  // one backtest worker, for C (a plain backtest through the service); nothing else queues runs
  workerConcurrency: 1,
  deployments: { run: false },
  drift: { refresh: false },
  verification: { enabled: false },
});
const { store } = stratbox;
const settings = resolveDriftSettings();
await stratbox.start(); // the backtest worker of C

// ---- the deployment and its synthesized recording ------------------------------------------------

const { userId } = await stratbox.users.createUser('drifter');
const strategy = await stratbox.strategies.create(userId, { name: 'sma cross', description: '', source: SOURCE, marketType: 'LINEAR' });
const credential = await stratbox.credentials.create(userId, { exchange: 'paper', label: 'paper', apiKey: 'k', secret: 's', testnet: false });
const deployment: DeploymentRecord = {
  id: newId('deployment'),
  userId,
  strategyId: strategy.id,
  strategyVersion: 1,
  credentialId: credential.id,
  symbols: [SYMBOL],
  params: {},
  status: 'stopped',
  error: null,
  createdAt: iso(FROM - STEP),
  updatedAt: iso(TO),
  startedAt: iso(FROM - STEP),
  stoppedAt: iso(TO),
};
await store.deployments.insert(deployment);

// the candles a live session gets: `warmup + 5` warm-up candles, then the window (as the replay loads them)
const warmFrom = FROM - (WARMUP + 5) * STEP;
const market = (await stratbox.marketData.getCandles({ symbol: SYMBOL, timeframe: '1m', startDate: dayOf(warmFrom), endDate: dayOf(TO - 1) })).series;
const series = allocateSeries(SYMBOL, '1m', market.length);
let n = 0;
for (let i = 0; i < market.length; i++) {
  const t = market.time[i]!;
  if (t < warmFrom || t >= TO) continue;
  series.time[n] = t;
  series.open[n] = market.open[i]!;
  series.high[n] = market.high[i]!;
  series.low[n] = market.low[i]!;
  series.close[n] = market.close[i]!;
  series.volume[n] = market.volume[i]!;
  n++;
}
const candles = sliceSeries(series, 0, n);
const funding = await loadBacktestFunding(stratbox.marketData, { symbols: [SYMBOL], startDate: dayOf(FROM), endDate: dayOf(TO - 1) });
const backtestInput: BacktestRunInput = {
  source: SOURCE,
  series: [candles],
  startTime: FROM,
  fees: settings.fees,
  leverage: 1,
  slippage: settings.slippage,
  initialCapital: CAPITAL,
  params: {},
  marketType: 'LINEAR',
  seed: deploymentSeed(deployment.id),
  ...(funding.source === null ? {} : { funding: funding.funding }),
};
const runOptions = () => ({ signal: new AbortController().signal, tenant: userId, onProgress: () => {} });

const recordingStarted = performance.now();
const journalled = await strategyRunner.run({ ...backtestInput, journal: true }, runOptions());
const journal = journalled.journal ?? [];
const curve = journalled.equityCurve.map((p) => ({ time: Date.parse(p.time), equity: p.equity }));

await store.deploymentRecordings.recordRun({ deploymentId: deployment.id, startedAt: iso(FROM - STEP), startEquity: CAPITAL, resumed: false });
const intentOf = (o: (typeof journal)[number]): RecordedIntent => ({
  id: newIntentId(),
  deploymentId: deployment.id,
  candleTime: o.candleTime,
  source: o.source,
  kind: 'place',
  symbol: o.symbol,
  side: o.side,
  type: o.type as 'market' | 'limit' | 'stop',
  quantity: o.quantity,
  size: o.size,
  price: o.price,
  reduceOnly: o.reduceOnly,
  closeAll: o.closeAll,
  tag: o.tag,
  guestId: o.id,
  recordedAt: iso(o.candleTime + STEP),
});
/** The strategy's own orders (the engine's stop-loss, liquidation and end-of-run closes are not intents). */
const placed = journal.filter((o) => o.type === 'market' || o.type === 'limit' || o.type === 'stop');
const byCandle = new Map<number, RecordedIntent[]>();
for (const o of placed.filter((p) => p.source === 'candle')) {
  const list = byCandle.get(o.candleTime) ?? [];
  list.push(intentOf(o));
  byCandle.set(o.candleTime, list);
}
let k = 0;
let equity = CAPITAL;
let recordedCandles = 0;
for (let i = 0; i < candles.length; i++) {
  const time = candles.time[i]!;
  if (time < FROM) continue;
  while (k < curve.length && curve[k]!.time <= time) equity = curve[k++]!.equity;
  await store.deploymentRecordings.recordCandle(
    {
      deploymentId: deployment.id,
      symbol: SYMBOL,
      time,
      open: candles.open[i]!,
      high: candles.high[i]!,
      low: candles.low[i]!,
      close: candles.close[i]!,
      volume: candles.volume[i]!,
      equity,
      recordedAt: iso(time + STEP),
    },
    byCandle.get(time) ?? [],
  );
  recordedCandles++;
}
const fromOnOrder = placed.filter((p) => p.source === 'order').map(intentOf);
if (fromOnOrder.length > 0) await store.deploymentRecordings.recordIntents(fromOnOrder);
let fills = 0;
for (const o of placed) {
  if (o.status !== 'filled' || o.fillTime === null || o.fillPrice === null) continue;
  const id = newId('order');
  await store.orders.insert({
    id,
    userId,
    deploymentId: deployment.id,
    clientOrderId: `sb_${id}`,
    exchangeOrderId: `paper_${id}`,
    symbol: o.symbol,
    side: o.side,
    type: o.type as 'market' | 'limit' | 'stop',
    quantity: o.fillQuantity,
    price: o.type === 'limit' ? o.price : null,
    stopPrice: o.type === 'stop' ? o.price : null,
    reduceOnly: o.reduceOnly,
    status: 'filled',
    filledQuantity: o.fillQuantity,
    averagePrice: o.fillPrice,
    fee: o.fee,
    createdAt: iso(o.candleTime + STEP),
    updatedAt: iso(o.fillTime),
  });
  fills++;
}
const f = (x: number, digits = 1) => x.toLocaleString('en', { maximumFractionDigits: digits, minimumFractionDigits: digits });
console.log(
  `Drift report vs plain backtest: ${SYMBOL} 1m, ${DAYS} days (${recordedCandles.toLocaleString('en')} recorded candles, ` +
    `${placed.length} intents = ${f(placed.length / DAYS)} a day, ${fills} fills), ${journalled.equityCurve.length} replay equity points; ` +
    `recording synthesized in ${f((performance.now() - recordingStarted) / 1000)} s; sandbox pool on ${availableParallelism()} CPUs`,
);

// ---- A B A B ----------------------------------------------------------------------------------------

interface Measured {
  wallMs: number;
  sandboxMs: number;
  hostMs: number;
}

async function measure(run: () => Promise<number>): Promise<Measured> {
  const cpu = process.cpuUsage();
  const t0 = performance.now();
  const sandboxMs = await run();
  const wallMs = performance.now() - t0;
  const used = process.cpuUsage(cpu);
  return { wallMs, sandboxMs, hostMs: (used.user + used.system) / 1000 };
}

const plainBacktest = () => measure(async () => (await strategyRunner.run(backtestInput, runOptions())).computeMs);
/** C: the same 30 days as a user's plain backtest through the service: queued, candles loaded, run, result stored, metered. */
const serviceBacktest = () =>
  measure(async () => {
    const created = await stratbox.backtests.create(userId, {
      strategyId: strategy.id,
      symbols: [SYMBOL],
      startDate: dayOf(FROM),
      endDate: dayOf(TO - 1),
      timeframe: '1m',
      initialCapital: CAPITAL,
    });
    const deadline = Date.now() + 300_000;
    for (;;) {
      if (Date.now() > deadline) throw new Error('the service backtest did not complete within 5 minutes');
      await new Promise((resolve) => setTimeout(resolve, 2));
      const current = await stratbox.backtests.get(userId, created.id);
      if (current.status === 'completed') return 0;
      if (current.status === 'failed' || current.status === 'cancelled') throw new Error(`service backtest ${current.status}`);
    }
  });
let parityShare: number | null = null;
let matchedTrades = 0;
const driftReport = (round: number) =>
  measure(async () => {
    const report = await stratbox.drift.report(userId, deployment.id);
    parityShare = report.parity.share;
    matchedTrades = report.trades.matched;
    if (round > 0 && report.alerts.thresholds.minCorrelation !== (round % 2 === 0 ? 0.8 : 0.79)) throw new Error('the stored report answered');
    return report.replay.cpuMs;
  });

// one of each first, unmeasured: the sandbox children start and JIT warms up
await plainBacktest();
await driftReport(0);
await serviceBacktest();

const rows: Array<{ round: number; a: Measured; b: Measured; c: Measured }> = [];
for (let round = 1; round <= ROUNDS; round++) {
  const a = await plainBacktest();
  await stratbox.drift.setThresholds(userId, deployment.id, { minCorrelation: round % 2 === 0 ? 0.8 : 0.79 });
  const b = await driftReport(round);
  const c = await serviceBacktest();
  rows.push({ round, a, b, c });
}

const total = (m: Measured) => m.sandboxMs + m.hostMs;
const median = (xs: number[]) => {
  const s = [...xs].sort((x, y) => x - y);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};
const cells = (m: Measured) => [f(m.wallMs).padStart(9), f(m.sandboxMs).padStart(11), f(m.hostMs).padStart(9), f(total(m)).padStart(9)];
console.log(
  [
    'round',
    'run'.padEnd(14),
    'wall ms'.padStart(9),
    'sandbox ms'.padStart(11),
    'host ms'.padStart(9),
    'CPU ms'.padStart(9),
    'B/A wall'.padStart(9),
    'B/A CPU'.padStart(9),
  ].join(' '),
);
for (const { round, a, b, c } of rows) {
  console.log([String(round).padStart(5), 'A backtest'.padEnd(14), ...cells(a)].join(' '));
  console.log([String(round).padStart(5), 'C via service'.padEnd(14), '', f(c.wallMs).padStart(9)].join(' '));
  console.log(
    [String(round).padStart(5), 'B drift report'.padEnd(14), ...cells(b), f(b.wallMs / a.wallMs, 2).padStart(9), f(total(b) / total(a), 2).padStart(9)].join(
      ' ',
    ),
  );
}
const wallRatio = median(rows.map((r) => r.b.wallMs / r.a.wallMs));
const cpuRatio = median(rows.map((r) => total(r.b) / total(r.a)));
console.log(
  `\nMedian B/A over ${ROUNDS} rounds: wall ${f(wallRatio, 2)}, CPU (sandbox + host) ${f(cpuRatio, 2)}; ` +
    `target <= 1.5: ${wallRatio <= 1.5 && cpuRatio <= 1.5 ? 'met' : 'NOT met'} ` +
    `(report: parity ${parityShare === null ? 'n/a' : f(parityShare * 100)} %, ${matchedTrades} matched trades)`,
);
const serviceRatio = median(rows.map((r) => r.b.wallMs / r.c.wallMs));
console.log(
  `Median B/C over ${ROUNDS} rounds (C: the same 30 days as a plain backtest through the service, its wall time from create to completed): ` +
    `wall ${f(serviceRatio, 2)}; target <= 1.5: ${serviceRatio <= 1.5 ? 'met' : 'NOT met'}`,
);
// for scale: the store's share of B, reading the recording alone (the memory store copies each candle)
const reads: number[] = [];
for (let i = 0; i < 3; i++) {
  const read = await measure(async () => (await store.deploymentRecordings.listCandles(deployment.id, FROM, TO)).length * 0);
  reads.push(read.hostMs);
}
console.log(`Reading the ${recordedCandles.toLocaleString('en')} recorded candles from the memory store alone: ${f(median(reads))} ms host CPU (median of 3)`);
await stratbox.close();
process.exit(0);

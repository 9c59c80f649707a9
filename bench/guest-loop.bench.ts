/**
 * Guest loop micro-benchmark: the candle loop alone, inside QuickJS, for this engine's bundled
 * runtime beside the previous engine's ES5 runtime (extracted from git by previous-engine.ts).
 * Both get the very same batches (candles, precomputed SMA blocks, symbol indexes) and only the
 * calls into the guest (runBatch, drainStates, drainTrades) are timed, in CPU time of this
 * process; no child process, no host indicator work, no equity marking. Use it to bisect a
 * difference that bench/engine.bench.ts shows end to end.
 *
 *   cd bench && node --no-liftoff --conditions=@stratbox/source --import tsx guest-loop.bench.ts
 *   (BARS=n, ROUNDS=n, BATCH=n; STRATEGY=sma, the reference, or orders, a trade every 2 bars, and
 *   others below, history ones among them (the previous engine has no ctx.history: compare those
 *   with AGAINST); AGAINST=<commit>: this engine at that commit instead of the previous engine.
 *   A period the bench did not precompute reads the 10-candle SMA: the same work in the guest,
 *   other trades.)
 *
 * The two runs are open at once and take turns batch by batch, so both see the same load on a
 * noisy machine; --no-liftoff compiles QuickJS's WASM optimized from the start, so no run pays
 * for V8's tier-up. Figures: per round, and the median of the paired ratios.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { QuickJSContext, QuickJSHandle } from 'quickjs-emscripten-core';
import { MAX_HISTORY } from '../packages/core/src/engine/guest/candle-history.js';
import { bundleGuestScript } from '../packages/core/src/engine/guest-bundle.js';
import { buildHistorySeed } from '../packages/core/src/engine/history-seed.js';
import { guestScript } from '../packages/core/src/engine/guest-script.js';
import { newQuickJSInstance } from '../packages/core/src/sandbox/quickjs-variants.js';
import { previousEngineDir } from './previous-engine.js';
import { HISTORY_STRATEGY, type SyntheticCandles, syntheticCandles } from './synthetic-candles.js';

const BARS = Number(process.env.BARS ?? 1_000_000);
const ROUNDS = Number(process.env.ROUNDS ?? 7);
const BATCH = Number(process.env.BATCH ?? 4096);
const WARMUP = 50;
/** A commit to compare with instead of the previous engine (this engine before a change). */
const AGAINST = process.env.AGAINST;

const STRATEGIES: Record<string, string> = {
  sma: `export function onCandle(ctx, candle) {
  const f = ctx.indicators.sma(candle.symbol, ctx.params.fast);
  const s = ctx.indicators.sma(candle.symbol, ctx.params.slow);
  if (f > s && !ctx.position(candle.symbol)) ctx.buy(candle.symbol, { size: 0.1 });
  if (f < s && ctx.position(candle.symbol)) ctx.close(candle.symbol);
}`,
  empty: 'export function onCandle(ctx, candle) {}',
  // A buy and a close every 36 candles, about as often as the reference trades: the order path alone.
  flip: `let k = 0;
export function onCandle(ctx, candle) {
  k++;
  if (k % 36 === 0) ctx.buy(candle.symbol, { size: 0.1 });
  if (k % 36 === 18) ctx.close(candle.symbol);
}`,
  // The reference without its orders.
  'sma-notrade': `export function onCandle(ctx, candle) {
  const f = ctx.indicators.sma(candle.symbol, ctx.params.fast);
  const s = ctx.indicators.sma(candle.symbol, ctx.params.slow);
  if (f > s && !ctx.position(candle.symbol)) ctx.now();
  if (f < s && ctx.position(candle.symbol)) ctx.now();
}`,
  indicators: `export function onCandle(ctx, candle) {
  const f = ctx.indicators.sma(candle.symbol, ctx.params.fast);
  const s = ctx.indicators.sma(candle.symbol, ctx.params.slow);
}`,
  position: `export function onCandle(ctx, candle) {
  ctx.position(candle.symbol);
  ctx.position(candle.symbol);
}`,
  placecancel: `export function onCandle(ctx, candle) {
  ctx.cancel(ctx.buy(candle.symbol, { size: 0.1 }));
}`,
  view: `export function onCandle(ctx, candle) {
  if (!ctx.position(candle.symbol)) ctx.buy(candle.symbol, { size: 0.1 });
}`,
  noview: `let k = 0;
let held = false;
export function onCandle(ctx, candle) {
  if (k++ % 2 === 0) {
    if (!held) ctx.buy(candle.symbol, { size: 0.1 });
    else ctx.close(candle.symbol);
    held = !held;
  }
}`,
  history: HISTORY_STRATEGY,
  'history-call': `export function onCandle(ctx, candle) {
  ctx.history(candle.symbol, 100);
}`,
  'sma-history': `export const meta = { timeframes: ['4h'] };
export function onCandle(ctx, candle) {
  ctx.history(candle.symbol, 100);
  const f = ctx.indicators.sma(candle.symbol, ctx.params.fast);
  const s = ctx.indicators.sma(candle.symbol, ctx.params.slow);
  if (f > s && !ctx.position(candle.symbol)) ctx.buy(candle.symbol, { size: 0.1 });
  if (f < s && ctx.position(candle.symbol)) ctx.close(candle.symbol);
}`,
  'history-close': `export function onCandle(ctx, candle) {
  ctx.history(candle.symbol, 100).close;
}`,
  'sma-20': `export function onCandle(ctx, candle) {
  ctx.indicators.sma(candle.symbol, 20);
}`,
  'sma-4h': `export const meta = { timeframes: ['4h'] };
const H4 = { timeframe: '4h' };
export function onCandle(ctx, candle) {
  ctx.indicators.sma(candle.symbol, 20, H4);
}`,
  orders: `let k = 0;
export function onCandle(ctx, candle) {
  const f = ctx.indicators.sma(candle.symbol, ctx.params.fast);
  if (k++ % 2 === 0) {
    if (!ctx.position(candle.symbol)) ctx.buy(candle.symbol, { size: 0.1 });
    else ctx.close(candle.symbol);
  }
}`,
};
const STRATEGY = STRATEGIES[process.env.STRATEGY ?? 'sma']!;
/** Timeframes the strategy declares (its meta.timeframes), for the run's config. */
const DECLARED = STRATEGY.includes("timeframes: ['4h']") ? [{ name: '4h', ms: 4 * 3_600_000 }] : [];

type Candles = SyntheticCandles;

function smaSeries(close: Float64Array, period: number): Float64Array {
  const out = new Float64Array(close.length).fill(Number.NaN);
  let sum = 0;
  for (let i = 0; i < close.length; i++) {
    sum += close[i]!;
    if (i >= period) sum -= close[i - period]!;
    if (i >= period - 1) out[i] = sum / period;
  }
  return out;
}

interface Engine {
  name: string;
  /** Evaluates the runtime in `vm` and answers its api object handle. */
  load(vm: QuickJSContext, bootJson: string): QuickJSHandle;
}

function unwrap(vm: QuickJSContext, r: ReturnType<QuickJSContext['evalCode']>): QuickJSHandle {
  if ('error' in r && r.error) {
    const e = vm.dump(r.error);
    r.error.dispose();
    throw new Error(`guest threw: ${JSON.stringify(e)}`);
  }
  return (r as { value: QuickJSHandle }).value;
}

function cpuMicros(): number {
  const u = process.cpuUsage();
  return u.user + u.system;
}

/** A backtest of `candles` in a fresh QuickJS instance, run a batch at a time; `step` answers false when done. */
async function openRun(engine: Engine, candles: Candles, smas: Map<number, Float64Array>) {
  const wasm = await newQuickJSInstance('quickjs');
  const runtime = wasm.newRuntime();
  runtime.setMemoryLimit(1024 ** 3);
  // As in the sandbox: QuickJS polls an interrupt handler every few thousand operations.
  runtime.setInterruptHandler(() => false);
  const vm = runtime.newContext();
  const n = candles.time.length;
  const boot = JSON.stringify({ seed: 1, startTime: candles.time[0], maxLogLines: 1000, maxLogBytes: 100_000 });
  const api = engine.load(vm, boot);
  const fn = (name: string) => vm.getProp(api, name);
  const [start, runBatch, drainStates, drainTrades, finish, lastError] = ['start', 'runBatch', 'drainStates', 'drainTrades', 'finish', 'lastError'].map(fn) as [
    QuickJSHandle,
    QuickJSHandle,
    QuickJSHandle,
    QuickJSHandle,
    QuickJSHandle,
    QuickJSHandle,
  ];
  // Engines since ctx.history take start(ns, register, history, cfg) and register(kind, symbol, timeframe, ...args); earlier ones start(ns, register, cfg) and register(kind, symbol, period, multiplier).
  const lengthH = vm.getProp(start, 'length');
  const withHistory = vm.getNumber(lengthH) === 4;
  lengthH.dispose();
  const ns = unwrap(vm, vm.evalCode(STRATEGY, 'strategy.js', { type: 'module' }));

  const registered: Float64Array[] = [];
  let batchStart = 0;
  let batchLen = 0;
  const block = (series: Float64Array, dst: Float64Array, base: number) => {
    dst[base] = batchStart > 0 ? series[batchStart - 1]! : Number.NaN;
    dst.set(series.subarray(batchStart, batchStart + batchLen), base + 1);
  };
  const register = vm.newFunction('register', (_kind, _s, third, fourth) => {
    // Any period not precomputed (a 4h SMA, say) reads the 10-candle series: the same work in the guest.
    const series = smas.get(vm.getNumber(withHistory ? fourth! : third!)) ?? smas.get(10)!;
    registered.push(series);
    const out = new Float64Array(batchLen + 1);
    block(series, out, 0);
    return vm.newArrayBuffer(out.buffer);
  });
  const cfg = {
    symbols: ['BTC/USDT:USDT'],
    timeframes: [{ name: '1m', ms: 60_000 }, ...DECLARED],
    params: { fast: 10, slow: 50 },
    warmup: WARMUP,
    initialCapital: 10_000,
    maker: 0.0002,
    taker: 0.0005,
    leverage: 1,
    slippage: 0,
    maintenanceMarginRate: 0.005,
    allowShort: true,
    liquidation: true,
    lastTimes: [candles.time[n - 1]],
    lastCloses: [candles.close[n - 1]],
    maxIndicators: 64,
    funding: [null],
  };
  const cfgH = vm.newString(JSON.stringify(cfg));
  const history = vm.newFunction('history', (_s, tfH, atH) => {
    const tf = vm.getNumber(tfH);
    const seed = buildHistorySeed(candles, batchStart + vm.getNumber(atH), tf === 0 ? 60_000 : DECLARED[tf - 1]!.ms, 60_000, MAX_HISTORY);
    return vm.newArrayBuffer(seed.buffer as ArrayBuffer);
  });
  unwrap(vm, vm.callFunction(start, vm.undefined, ...(withHistory ? [ns, register, history, cfgH] : [ns, register, cfgH])));
  cfgH.dispose();

  const fail = () => {
    const h = unwrap(vm, vm.callFunction(lastError, vm.undefined));
    throw new Error(vm.getString(h));
  };
  const result = { cpuMs: 0, trades: 0, cash: Number.NaN };
  return {
    result,
    /** Runs the next batch; false when every candle was run (and the run finished). */
    step(): boolean {
      if (batchStart >= n) return false;
      batchLen = Math.min(BATCH, n - batchStart);
      const len = batchLen;
      const buf = new Float64Array(len * 7 + registered.length * (len + 1));
      buf.set(candles.time.subarray(batchStart, batchStart + len), 0);
      buf.set(candles.open.subarray(batchStart, batchStart + len), len);
      buf.set(candles.high.subarray(batchStart, batchStart + len), 2 * len);
      buf.set(candles.low.subarray(batchStart, batchStart + len), 3 * len);
      buf.set(candles.close.subarray(batchStart, batchStart + len), 4 * len);
      buf.set(candles.volume.subarray(batchStart, batchStart + len), 5 * len);
      let base = len * 6;
      for (const series of registered) {
        block(series, buf, base);
        base += len + 1;
      }
      const sy = new Int32Array(buf.buffer, base * 8, len);
      for (let i = 0; i < len; i++) sy[i] = batchStart + i + 1 >= WARMUP ? 0 : -1;
      const bufH = vm.newArrayBuffer(buf.buffer);
      const nH = vm.newNumber(len);
      const t0 = cpuMicros();
      const statusH = unwrap(vm, vm.callFunction(runBatch, vm.undefined, bufH, nH));
      const status = vm.getNumber(statusH);
      if (status < 0) fail();
      if (status & 4) vm.callFunction(drainStates, vm.undefined).unwrap().dispose();
      if (status & 1) {
        const h = vm.callFunction(drainTrades, vm.undefined).unwrap();
        const life = vm.getArrayBuffer(h);
        result.trades += life.value.byteLength;
        life.dispose();
        h.dispose();
      }
      result.cpuMs += (cpuMicros() - t0) / 1000;
      statusH.dispose();
      bufH.dispose();
      nH.dispose();
      batchStart += len;
      if (batchStart < n) return true;
      const finalH = unwrap(vm, vm.callFunction(finish, vm.undefined));
      const life = vm.getArrayBuffer(finalH);
      result.cash = new Float64Array(life.value.slice().buffer)[0]!;
      life.dispose();
      finalH.dispose();
      for (const h of [start, runBatch, drainStates, drainTrades, finish, lastError, ns, register, history, api]) h.dispose();
      vm.dispose();
      runtime.dispose();
      return false;
    },
  };
}

const median = (xs: number[]) => xs.slice().sort((a, b) => a - b)[xs.length >> 1]!;

async function main() {
  const candles = syntheticCandles(BARS);
  const smas = new Map([10, 20, 50].map((p) => [p, smaSeries(candles.close, p)]));
  const moduleEngine = (name: string, script: string): Engine => ({
    name,
    load(vm, bootJson) {
      const ns = unwrap(vm, vm.evalCode(script, 'stratbox-runtime.js', { type: 'module' }));
      const factory = vm.getProp(ns, 'createRuntime');
      ns.dispose();
      const bootH = vm.newString(bootJson);
      const api = unwrap(vm, vm.callFunction(factory, vm.undefined, bootH));
      bootH.dispose();
      factory.dispose();
      return api;
    },
  });
  const engines: Engine[] = [];
  if (AGAINST) {
    // This engine at another commit (its sources bundled by today's guest-bundle.ts), to measure one change.
    const dir = join(tmpdir(), `stratbox-guest-${AGAINST}`);
    mkdirSync(dir, { recursive: true });
    const archive = execFileSync('git', ['-C', join(import.meta.dirname, '..'), 'archive', AGAINST, 'packages/core/src'], { maxBuffer: 64 * 1024 ** 2 });
    execFileSync('tar', ['-x', '-C', dir], { input: archive });
    engines.push(moduleEngine(AGAINST, bundleGuestScript(join(dir, 'packages/core/src/engine/guest/backtest-runtime.ts'))));
  } else {
    const previousDir = await previousEngineDir();
    const { GUEST_RUNTIME_SOURCE } = (await import(pathToFileURL(join(previousDir, 'packages/core/src/sandbox/guest-runtime.ts')).href)) as {
      GUEST_RUNTIME_SOURCE: string;
    };
    engines.push({
      name: 'previous',
      load(vm, bootJson) {
        const factory = unwrap(vm, vm.evalCode(GUEST_RUNTIME_SOURCE, 'stratbox-runtime.js'));
        const bootH = vm.newString(bootJson);
        const api = unwrap(vm, vm.callFunction(factory, vm.undefined, bootH));
        bootH.dispose();
        factory.dispose();
        return api;
      },
    });
  }
  engines.push(moduleEngine('this', await guestScript('backtest-runtime')));
  console.log(`guest loop only: ${BARS} candles, batches of ${BATCH}, strategy ${process.env.STRATEGY ?? 'sma'}, ${ROUNDS} alternating rounds`);
  const times: number[][] = engines.map(() => []);
  const ratios: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    // Both runs open at once and step a batch each in turn, so both see the same machine load.
    const runs = [];
    for (const e of engines) runs.push(await openRun(e, candles, smas));
    let more = true;
    while (more) {
      more = false;
      for (const run of runs) more = run.step() || more;
    }
    const out = runs.map((run) => run.result);
    out.forEach((res, k) => times[k]!.push(res.cpuMs));
    ratios.push(out[0]!.cpuMs / out[1]!.cpuMs);
    console.log(
      `round ${r + 1}: ${engines.map((e, k) => `${e.name} ${out[k]!.cpuMs.toFixed(0)} ms (cash ${out[k]!.cash.toFixed(6)})`).join(', ')}, this/other speed ${ratios[r]!.toFixed(3)}x`,
    );
  }
  console.log(
    `medians: ${engines.map((e, k) => `${e.name} ${median(times[k]!).toFixed(0)} ms`).join(', ')}; this engine / other: ${(median(times[0]!) / median(times[1]!)).toFixed(3)}x (median of paired ratios ${median(ratios).toFixed(3)}x)`,
  );
}

await main();

import type { QuickJSWASMModule } from 'quickjs-emscripten-core';
import { isStratboxError } from '../../errors/stratbox-error.js';
import { buildHistorySeed } from '../../engine/history-seed.js';
import { createHostIndicator, guestIndicatorSpec, type HostIndicator } from '../../engine/host-indicator.js';
import { indicatorOutputs, type IndicatorSpec } from '../../indicators/indicator-kinds.js';
import { MAX_HISTORY } from '../../engine/guest/candle-history.js';
import { runTimeframes } from '../../engine/run-timeframes.js';
import { TIMEFRAME_MS, type TimeframeName } from '../../ports/market-data.js';
import { STATE_FIELDS, TRADE_FIELDS } from '../../engine/model/codes.js';
import { SandboxError, type GuestLogLine } from '../../sandbox/sandbox-error.js';
import { type SourceLocator, createSourceLocator, withSourceLocation } from '../../sandbox/source-map.js';
import { type CompiledStrategy, compileStrategySourceAsync } from '../../sandbox/strategy-source.js';
import { parseStrategyMeta, parseStrategyParams, type ParamValue, type StrategyMeta } from '../../sandbox/strategy-meta.js';
import type { WireJob } from './backtest-job.js';
import { type BacktestWarmStart, openBacktestSession, type GuestLimits, type GuestSession, type WarmGuestSession } from './backtest-session.js';
import { buyAndHold, symbolMetrics, type BacktestMetrics, type BacktestSymbolMetrics } from './metrics.js';

/** Limits of one backtest in the child. */
export interface EngineLimits extends GuestLimits {
  /** Most indicator series one strategy may use (Bollinger counts 3). */
  maxIndicators: number;
}

export interface RunHooks {
  isCancelled(): boolean;
  onProgress(processedBars: number, totalBars: number): void;
  /** A WASM instance to run in (a sweep's trials reuse one); by default a fresh one. */
  wasm?: QuickJSWASMModule;
  /** Sessions that start from a snapshot of the guest runtime (a sweep's trials); `wasm` is then not used. */
  warm?: BacktestWarmStart;
  /** Compiles the strategy source (a sweep's trials compile it once); by default `compileStrategySourceAsync`. */
  compile?: (source: string) => Promise<CompiledStrategy>;
  /**
   * Indicator series over the whole run, shared by runs of the same job (a sweep's trials: the
   * same candles give the same values), so each is computed once; without it each run computes
   * its own as it goes. See `createSeriesCache`.
   */
  series?: SeriesCache;
  /**
   * Candles in the first batch (default 512; later batches are sized to take about 40 ms). A
   * sweep's trials report no progress between batches and start bigger: fewer crossings into the guest.
   */
  firstBatch?: number;
}

/**
 * Whole-run indicator series by spec, symbol and timeframe, for the runs of one job. Holds at
 * most `maxValues` numbers; a series past that is computed by each run for itself.
 */
export interface SeriesCache {
  get(key: string): Float64Array | undefined;
  /** Keeps `values` if they fit. */
  put(key: string, values: Float64Array): void;
}

/** A `SeriesCache` of at most `maxValues` numbers (default 8M: 64 MiB). */
export function createSeriesCache(maxValues = 8 * 1024 * 1024): SeriesCache {
  const kept = new Map<string, Float64Array>();
  let held = 0;
  return {
    get: (key) => kept.get(key),
    put(key, values) {
      if (held + values.length > maxValues) return;
      kept.set(key, values);
      held += values.length;
    },
  };
}

/**
 * A registered indicator series as the batch loop fills it: `outputs` blocks of `n + 1` numbers
 * per batch (the value before the batch's first candle, then after each), from a host indicator
 * fed as the run goes, or copied from its whole-run values (`SeriesCache`).
 */
interface BatchSeries {
  outputs: number;
  fill(dst: Float64Array, base: number, start: number, n: number): void;
}

/** The compact result the child sends back; the parent turns it into contract shapes. */
export interface RunOutput {
  symbols: string[];
  /** Times of the equity points; null when they are the traded candle times of the only symbol (the parent has those). */
  equityTimes: Float64Array | null;
  equity: Float64Array;
  /** `TRADE_FIELDS` numbers per trade: symbol, direction, entryTime, entryPrice, exitTime, exitPrice, quantity, pnl, fees, exit reason, funding. */
  trades: Float64Array;
  logs: GuestLogLine[];
  metrics: BacktestMetrics;
  meta: StrategyMeta;
  params: Record<string, ParamValue>;
  bars: number;
  cpuMs: number;
  /**
   * The order journal, when the job asked for it: `JOURNAL_FIELDS` numbers per order
   * (engine/guest/order-journal.ts), the tags they point at, and how many orders were left out
   * past the journal's cap.
   */
  journal?: { entries: Float64Array; tags: string[]; dropped: number };
}

const MIN_BATCH = 256;
const MAX_BATCH = 131_072;
const TARGET_BATCH_MS = 40;

/** Compiles the source and evaluates the module in the session; maps problems to INVALID_STRATEGY. */
export async function loadStrategy(session: GuestSession, source: string, compile = compileStrategySourceAsync) {
  let compiled;
  try {
    compiled = await compile(source);
  } catch (error) {
    if (isStratboxError(error)) throw new SandboxError('INVALID_STRATEGY', error.message, { details: error.details });
    throw error;
  }
  const locator = createSourceLocator(compiled.mappings);
  let ns;
  try {
    ns = session.loadModule(compiled.code);
  } catch (error) {
    if (error instanceof SandboxError && error.code === 'STRATEGY_ERROR') {
      throw withSourceLocation(new SandboxError('STRATEGY_ERROR', `The strategy threw while loading: ${error.message}`, { details: error.details }), locator);
    }
    throw error;
  }
  const metaHandle = session.call('readMeta', ns);
  const metaJson = session.vm.getString(metaHandle);
  metaHandle.dispose();
  let meta = parsedMetas.get(metaJson);
  if (meta === undefined) {
    try {
      meta = parseStrategyMeta(JSON.parse(metaJson));
    } catch (error) {
      if (isStratboxError(error)) throw new SandboxError('INVALID_STRATEGY', error.message, { details: error.details });
      throw error;
    }
    parsedMetas.set(metaJson, meta);
    for (const oldest of parsedMetas.keys()) if (parsedMetas.size > MAX_PARSED_METAS) parsedMetas.delete(oldest);
  }
  return { ns, meta, exports: compiled.exports, locator };
}

/**
 * Metas already validated, by the JSON the guest answered: a sweep's trials load one strategy
 * again and again, and validating its meta is a tenth of a millisecond each time. Never mutated
 * after parsing (callers only read a meta), so one object serves every run of the same meta.
 */
const parsedMetas = new Map<string, StrategyMeta>();
const MAX_PARSED_METAS = 32;

type LoadedStrategy = Awaited<ReturnType<typeof loadStrategy>>;

/**
 * The strategy loaded in the session: as a warm session started with it (the same source, seed
 * and clock as a session before, so the same module state), or loaded now and, from a warm
 * start, kept for the sessions after.
 */
async function loadedStrategy(
  session: GuestSession | WarmGuestSession,
  source: string,
  compile?: (source: string) => Promise<CompiledStrategy>,
): Promise<LoadedStrategy> {
  const warm = 'keep' in session ? session : null;
  if (warm?.loaded) return { ...(warm.loaded.value as Omit<LoadedStrategy, 'ns'>), ns: warm.loaded.handles[0]! };
  const loaded = await loadStrategy(session, source, compile);
  warm?.keep([loaded.ns], { meta: loaded.meta, exports: loaded.exports, locator: loaded.locator } satisfies Omit<LoadedStrategy, 'ns'>);
  return loaded;
}

function mergeOrder(job: WireJob) {
  const counts = job.candles.map((c, s) => c.time.length - job.history[s]!);
  const total = counts.reduce((a, b) => a + b, 0);
  const sym = new Uint16Array(total);
  const pos = new Int32Array(total);
  if (job.candles.length === 1) {
    const first = job.history[0]!;
    for (let k = 0; k < total; k++) pos[k] = first + k;
    return { sym, pos, total };
  }
  const heads = job.history.slice();
  const ends = job.candles.map((c) => c.time.length);
  for (let k = 0; k < total; k++) {
    let best = -1;
    let bestTime = Infinity;
    for (let s = 0; s < heads.length; s++) {
      if (heads[s]! < ends[s]!) {
        const t = job.candles[s]!.time[heads[s]!]!;
        if (t < bestTime) {
          bestTime = t;
          best = s;
        }
      }
    }
    sym[k] = best;
    pos[k] = heads[best]!;
    heads[best]!++;
  }
  return { sym, pos, total };
}

/** The smallest step between two candles of a symbol, when it is a supported timeframe. */
function inferTimeframe(job: WireJob): TimeframeName | null {
  let step = Infinity;
  for (const c of job.candles) for (let i = 1; i < c.time.length; i++) step = Math.min(step, c.time[i]! - c.time[i - 1]!);
  const found = Object.entries(TIMEFRAME_MS).find(([, ms]) => ms === step);
  return found ? (found[0] as TimeframeName) : null;
}

function logsFrom(json: string, into: GuestLogLine[]) {
  const lines = JSON.parse(json) as Array<[number, NonNullable<GuestLogLine['level']>, string]>;
  for (const [time, level, message] of lines) into.push({ time, level, message });
}

/** Reads the order journal out of the guest, after `finish`. */
function readJournal(session: GuestSession): NonNullable<RunOutput['journal']> {
  const vm = session.vm;
  const h = session.call('drainJournal');
  const life = vm.getArrayBuffer(h);
  const entries = new Float64Array(life.value.slice().buffer);
  life.dispose();
  h.dispose();
  const infoHandle = session.call('journalInfo');
  const info = JSON.parse(vm.getString(infoHandle)) as { tags: string[]; dropped: number };
  infoHandle.dispose();
  return { entries, tags: info.tags, dropped: info.dropped };
}

/**
 * Runs one backtest inside a fresh QuickJS runtime: the guest runtime drives the candle loop,
 * the host sends candles and indicator values in batches, marks equity from the account changes
 * the guest reports, and collects trades.
 * Runs in the sandbox's child process. Rejects with a `SandboxError`.
 */
export async function runBacktestInGuest(job: WireJob, limits: EngineLimits, hooks: RunHooks): Promise<RunOutput> {
  const { sym, pos, total } = mergeOrder(job);
  const nSym = job.symbols.length;
  const firstTime = job.candles[sym[0]!]!.time[pos[0]!]!;
  const session = await openBacktestSession({
    limits,
    seed: job.seed,
    startTime: firstTime,
    isCancelled: hooks.isCancelled,
    wasm: hooks.wasm,
    warm: hooks.warm,
    loadKey: job.source,
  });
  const logs: GuestLogLine[] = [];
  const drainLogs = () => {
    const h = session.call('drainLogs');
    logsFrom(session.vm.getString(h), logs);
    h.dispose();
  };
  let locator: SourceLocator | null = null;
  try {
    const loaded = await loadedStrategy(session, job.source, hooks.compile);
    const { ns, meta } = loaded;
    locator = loaded.locator;
    let params: Record<string, ParamValue>;
    try {
      params = parseStrategyParams(meta.params, job.params);
    } catch (error) {
      if (isStratboxError(error)) throw new SandboxError('INVALID_PARAMS', error.message, { details: error.details });
      throw error;
    }

    const vm = session.vm;
    const indicators: BatchSeries[] = [];
    const nextPos = job.history.slice();
    let batchStart = 0;
    let batchLen = 0;

    const fillBlock = (ind: HostIndicator, dst: Float64Array, base: number, start: number, n: number) => {
      const { time, open, high, low, close, volume } = job.candles[ind.s]!;
      const { s, last, outputs, feed, direct } = ind;
      if (outputs === 1 && direct !== null) {
        // The common case (one output, the run's timeframe) with no call in between: half the time of the general loop.
        let value = last[0]!;
        dst[base] = value;
        for (let i = 0; i < n; i++) {
          if (sym[start + i] === s) {
            const p = pos[start + i]!;
            direct.update(high[p]!, low[p]!, close[p]!, volume[p]!, time[p]!, last);
            value = last[0]!;
          }
          dst[base + 1 + i] = value;
        }
        return;
      }
      const stride = n + 1;
      for (let o = 0; o < outputs; o++) dst[base + o * stride] = last[o]!;
      for (let i = 0; i < n; i++) {
        if (sym[start + i] === s) {
          const p = pos[start + i]!;
          feed(time[p]!, open[p]!, high[p]!, low[p]!, close[p]!, volume[p]!);
        }
        for (let o = 0; o < outputs; o++) dst[base + o * stride + 1 + i] = last[o]!;
      }
    };

    const declared = meta.timeframes as TimeframeName[] | undefined;
    const baseName = job.timeframe ?? (meta.timeframe as TimeframeName | undefined) ?? inferTimeframe(job);
    if (declared?.length && baseName === null) {
      throw new SandboxError('INVALID_JOB', "meta.timeframes needs the candles' timeframe: give the job a timeframe");
    }
    const timeframes = runTimeframes(baseName ?? '1h', declared);
    if ('problem' in timeframes) throw new SandboxError('INVALID_STRATEGY', timeframes.problem);
    const baseMs = timeframes[0]!.ms;
    /** How many candles of symbol `s` the guest has closed when it is at index `at` of the current batch. */
    const closedCount = (s: number, at: number) => {
      let count = nextPos[s]!;
      for (let i = 0; i < at && i < batchLen; i++) if (sym[batchStart + i] === s) count++;
      return count;
    };
    const knownSymbol = (s: number) => Number.isInteger(s) && s >= 0 && s < nSym;
    const knownTimeframe = (tf: number) => Number.isInteger(tf) && tf >= 0 && tf < timeframes.length;
    /** A host indicator of `spec` on symbol `s` at timeframe `tf`, fed that symbol's first `fedUpTo` candles. */
    const hostIndicator = (spec: IndicatorSpec, s: number, tf: number, fedUpTo: number) => {
      const ind = createHostIndicator(spec, s, timeframes[tf]!.ms, baseMs);
      const { time, open, high, low, close, volume } = job.candles[s]!;
      for (let p = 0; p < fedUpTo; p++) ind.feed(time[p]!, open[p]!, high[p]!, low[p]!, close[p]!, volume[p]!);
      return ind;
    };
    /*
     * The series a registration asks for. With a cache: its whole-run values (the same arithmetic
     * in the same order as feeding it batch by batch, so the same numbers), computed by the first
     * run that asks (kept for the others while the cache has room) and copied by every batch
     * after. Without one: a host indicator fed from here on.
     */
    const batchSeries = (spec: IndicatorSpec, s: number, tf: number): BatchSeries => {
      const outputs = indicatorOutputs(spec.kind);
      if (hooks.series === undefined) {
        const ind = hostIndicator(spec, s, tf, nextPos[s]!);
        return { outputs, fill: (dst, base, start, n) => fillBlock(ind, dst, base, start, n) };
      }
      const key = `${spec.kind}(${spec.args.join(',')})@${s}/${timeframes[tf]!.name}/${baseMs}`;
      let values = hooks.series.get(key);
      if (values === undefined) {
        values = new Float64Array(outputs * (total + 1));
        fillBlock(hostIndicator(spec, s, tf, job.history[s]!), values, 0, 0, total);
        hooks.series.put(key, values);
      }
      const whole = values;
      return {
        outputs,
        fill(dst, base, start, n) {
          for (let o = 0; o < outputs; o++) dst.set(whole.subarray(o * (total + 1) + start, o * (total + 1) + start + n + 1), base + o * (n + 1));
        },
      };
    };

    const register = vm.newFunction('register', (kindH, sH, tfH, a0H, a1H, a2H) => {
      const s = vm.getNumber(sH);
      const tf = vm.getNumber(tfH);
      if (!knownSymbol(s) || !knownTimeframe(tf)) throw new TypeError('unknown indicator');
      const spec = guestIndicatorSpec(vm.getNumber(kindH), vm.getNumber(a0H), vm.getNumber(a1H), vm.getNumber(a2H));
      if (typeof spec === 'string') throw new TypeError(spec);
      const series = batchSeries(spec, s, tf);
      const block = new Float64Array(series.outputs * (batchLen + 1));
      series.fill(block, 0, batchStart, batchLen);
      indicators.push(series);
      return vm.newArrayBuffer(block.buffer);
    });
    /* The guest asks once per symbol and timeframe, at batch index `at` (the candle it reads as of). */
    const hostHistory = vm.newFunction('hostHistory', (sH, tfH, atH) => {
      const s = vm.getNumber(sH);
      const tf = vm.getNumber(tfH);
      if (!knownSymbol(s) || !knownTimeframe(tf)) throw new TypeError('unknown history');
      const seed = buildHistorySeed(job.candles[s]!, closedCount(s, vm.getNumber(atH)), timeframes[tf]!.ms, baseMs, MAX_HISTORY);
      return vm.newArrayBuffer(seed.buffer as ArrayBuffer);
    });

    const runCfg = {
      symbols: job.symbols,
      timeframes,
      params,
      warmup: meta.warmup ?? 0,
      initialCapital: job.initialCapital,
      maker: job.fees.maker,
      taker: job.fees.taker,
      leverage: job.leverage,
      slippage: job.slippage,
      maintenanceMarginRate: job.maintenanceMarginRate,
      allowShort: job.marketType !== 'SPOT',
      liquidation: job.marketType !== 'SPOT',
      lastTimes: job.candles.map((c) => c.time[c.time.length - 1]!),
      lastCloses: job.candles.map((c) => c.close[c.close.length - 1]!),
      maxIndicators: limits.maxIndicators,
      funding: job.funding.map((f) => (f === null ? null : { time: Array.from(f.time), rate: Array.from(f.rate) })),
      journal: job.journal === true,
    };
    const cfgHandle = vm.newString(JSON.stringify(runCfg));
    session.call('start', ns, register, hostHistory, cfgHandle).dispose();
    cfgHandle.dispose();
    ns.dispose();

    const equityAll = new Float64Array(total);
    const symEquityAll = nSym > 1 ? new Float64Array(total) : equityAll;
    const flagsAll = new Uint8Array(total);
    const tradeChunks: Float64Array[] = [];
    /*
     * Equity marks at every close, from the account changes the guest reports: cash, and each
     * symbol's quantity and entry price after the fills of a candle. Same arithmetic as marking
     * inside the guest, at V8 speed.
     */
    const acct = { cash: job.initialCapital, open: 0 };
    const qtyOf = new Float64Array(nSym);
    const entryOf = new Float64Array(nSym);
    const realizedOf = new Float64Array(nSym);
    const unrealOf = new Float64Array(nSym);
    /*
     * Unrealized P&L of the account: summed afresh over the symbols, in their order, whenever a
     * symbol's changes. Never carried from one batch to the next: batch sizes follow timing, so
     * a running total would make the last digits of equity differ between two runs of one job.
     */
    const unrealTotal = () => {
      let sum = 0;
      for (let s = 0; s < nSym; s++) sum += unrealOf[s]!;
      return sum;
    };
    const markBatch = (start: number, n: number, states: Float64Array | null) => {
      let unreal = unrealTotal();
      let { cash, open } = acct;
      let k = 0;
      let next = states && states.length > 0 ? states[0]! : -1;
      for (let i = 0; i < n; i++) {
        const s = sym[start + i]!;
        if (i === next) {
          const b = k * STATE_FIELDS;
          const ss = states![b + 1]!;
          const nq = states![b + 2]!;
          if ((qtyOf[ss] !== 0) !== (nq !== 0)) open += nq !== 0 ? 1 : -1;
          qtyOf[ss] = nq;
          entryOf[ss] = states![b + 3]!;
          cash = states![b + 4]!;
          realizedOf[ss] = states![b + 5]!;
          if (nq === 0 && unrealOf[ss] !== 0) {
            unrealOf[ss] = 0;
            unreal = unrealTotal();
          }
          k++;
          next = (k + 1) * STATE_FIELDS <= states!.length ? states![k * STATE_FIELDS]! : -1;
        }
        const q = qtyOf[s]!;
        if (q !== 0) {
          unrealOf[s] = q * (job.candles[s]!.close[pos[start + i]!]! - entryOf[s]!);
          unreal = nSym === 1 ? unrealOf[s]! : unrealTotal();
        }
        equityAll[start + i] = cash + unreal;
        if (nSym > 1) symEquityAll[start + i] = job.initialCapital + realizedOf[s]! + unrealOf[s]!;
        flagsAll[start + i] = (open > 0 ? 1 : 0) | (q !== 0 ? 2 : 0);
      }
      acct.cash = cash;
      acct.open = open;
    };
    const drainStates = () => {
      const h = session.call('drainStates');
      const life = vm.getArrayBuffer(h);
      const states = new Float64Array(life.value.slice().buffer);
      life.dispose();
      h.dispose();
      return states;
    };
    const drainTrades = () => {
      const h = session.call('drainTrades');
      const life = vm.getArrayBuffer(h);
      tradeChunks.push(new Float64Array(life.value.slice().buffer));
      life.dispose();
      h.dispose();
    };

    const warmup = meta.warmup ?? 0;
    let batch = Math.min(MAX_BATCH, Math.max(MIN_BATCH, hooks.firstBatch ?? MIN_BATCH * 2));
    let buf = new Float64Array(0);
    while (batchStart < total) {
      if (hooks.isCancelled()) throw new SandboxError('CANCELLED', 'The backtest was cancelled');
      const n = Math.min(batch, total - batchStart);
      batchLen = n;
      const indWidth = indicators.reduce((w, ind) => w + ind.outputs * (n + 1), 0);
      const width = n * 7 + indWidth;
      if (buf.length !== width) buf = new Float64Array(width);
      if (nSym === 1) {
        const p0 = pos[batchStart]!;
        const c = job.candles[0]!;
        buf.set(c.time.subarray(p0, p0 + n), 0);
        buf.set(c.open.subarray(p0, p0 + n), n);
        buf.set(c.high.subarray(p0, p0 + n), 2 * n);
        buf.set(c.low.subarray(p0, p0 + n), 3 * n);
        buf.set(c.close.subarray(p0, p0 + n), 4 * n);
        buf.set(c.volume.subarray(p0, p0 + n), 5 * n);
      } else {
        for (let i = 0; i < n; i++) {
          const c = job.candles[sym[batchStart + i]!]!;
          const p = pos[batchStart + i]!;
          buf[i] = c.time[p]!;
          buf[n + i] = c.open[p]!;
          buf[2 * n + i] = c.high[p]!;
          buf[3 * n + i] = c.low[p]!;
          buf[4 * n + i] = c.close[p]!;
          buf[5 * n + i] = c.volume[p]!;
        }
      }
      let base = n * 6;
      for (const series of indicators) {
        series.fill(buf, base, batchStart, n);
        base += series.outputs * (n + 1);
      }
      // Candles before the warm-up count are sent with the symbol as -(s + 1): no onCandle for them.
      const symbols = new Int32Array(buf.buffer, base * 8, n);
      for (let i = 0; i < n; i++) {
        const s = sym[batchStart + i]!;
        symbols[i] = pos[batchStart + i]! + 1 >= warmup ? s : -1 - s;
      }
      const started = performance.now();
      const bufHandle = vm.newArrayBuffer(buf.buffer);
      const nHandle = vm.newNumber(n);
      const statusHandle = session.call('runBatch', bufHandle, nHandle);
      bufHandle.dispose();
      nHandle.dispose();
      const status = vm.getNumber(statusHandle);
      statusHandle.dispose();
      if (status < 0) {
        try {
          drainLogs();
        } catch {
          // The logs are lost with the guest; the error matters more.
        }
        throw session.lastError();
      }
      markBatch(batchStart, n, status & 4 ? drainStates() : null);
      if (status & 1) drainTrades();
      if (status & 2) drainLogs();
      if (nSym === 1) nextPos[0]! += n;
      else for (let i = 0; i < n; i++) nextPos[sym[batchStart + i]!]!++;
      batchStart += n;
      hooks.onProgress(batchStart, total);
      const ms = performance.now() - started;
      if (ms < TARGET_BATCH_MS / 2 && batch < MAX_BATCH) batch *= 2;
      else if (ms > TARGET_BATCH_MS * 2 && batch > MIN_BATCH) batch = Math.max(MIN_BATCH, batch >> 1);
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    register.dispose();
    hostHistory.dispose();

    const finalHandle = session.call('finish');
    if (vm.typeof(finalHandle) !== 'object') {
      finalHandle.dispose();
      throw session.lastError();
    }
    const finalLife = vm.getArrayBuffer(finalHandle);
    const final = new Float64Array(finalLife.value.slice().buffer);
    finalLife.dispose();
    finalHandle.dispose();
    drainTrades();
    drainLogs();
    const journal = job.journal === true ? readJournal(session) : undefined;
    const cpuMs = session.cpuMs();

    // Final marks: positions closed at the last close, so the last points carry the closing fees.
    const lastIndexOf = new Int32Array(nSym).fill(-1);
    for (let i = total - 1, found = 0; i >= 0 && found < nSym; i--) {
      if (lastIndexOf[sym[i]!] === -1) {
        lastIndexOf[sym[i]!] = i;
        found++;
      }
    }
    if (nSym > 1) for (let s = 0; s < nSym; s++) if (lastIndexOf[s]! >= 0) symEquityAll[lastIndexOf[s]!] = final[1 + s]!;
    equityAll[total - 1] = final[0]!;

    // One equity point per distinct time: the mark after the last candle of that time.
    const times = new Float64Array(total);
    for (let i = 0; i < total; i++) times[i] = job.candles[sym[i]!]!.time[pos[i]!]!;
    let points = 0;
    for (let i = 0; i < total; i++) if (i === total - 1 || times[i + 1] !== times[i]) points++;
    let equityTimes = times;
    let equity = equityAll;
    const inMarket = new Uint8Array(points);
    if (points === total) {
      for (let i = 0; i < total; i++) inMarket[i] = flagsAll[i]! & 1;
    } else {
      equityTimes = new Float64Array(points);
      equity = new Float64Array(points);
      for (let i = 0, k = 0; i < total; i++) {
        if (i === total - 1 || times[i + 1] !== times[i]) {
          equityTimes[k] = times[i]!;
          equity[k] = equityAll[i]!;
          inMarket[k] = flagsAll[i]! & 1;
          k++;
        }
      }
    }

    let tradeCount = 0;
    for (const c of tradeChunks) tradeCount += c.length / TRADE_FIELDS;
    const trades = new Float64Array(tradeCount * TRADE_FIELDS);
    let off = 0;
    for (const c of tradeChunks) {
      trades.set(c, off);
      off += c.length;
    }
    const tradesOf = (s: number | null) => {
      let count = 0;
      for (let k = 0; k < tradeCount; k++) if (s === null || trades[k * TRADE_FIELDS] === s) count++;
      const pnl = new Float64Array(count);
      const fees = new Float64Array(count);
      const funding = new Float64Array(count);
      for (let k = 0, j = 0; k < tradeCount; k++) {
        if (s === null || trades[k * TRADE_FIELDS] === s) {
          pnl[j] = trades[k * TRADE_FIELDS + 7]!;
          fees[j] = trades[k * TRADE_FIELDS + 8]!;
          funding[j++] = trades[k * TRADE_FIELDS + 10]!;
        }
      }
      return { pnl, fees, funding };
    };
    const bhOf = (s: number) => {
      const { close } = job.candles[s]!;
      const first = job.history[s]!;
      const last = close.length - 1;
      return last >= first ? buyAndHold(close[first]!, close[last]!) : null;
    };

    const perSymbol: Record<string, BacktestSymbolMetrics> = {};
    let metrics: BacktestMetrics;
    if (nSym === 1) {
      const m = symbolMetrics({ times: equityTimes, values: equity, initial: job.initialCapital, inMarket }, tradesOf(null), bhOf(0));
      perSymbol[job.symbols[0]!] = m;
      metrics = { ...m, perSymbol };
    } else {
      const bhs: number[] = [];
      for (let s = 0; s < nSym; s++) {
        let count = 0;
        for (let i = 0; i < total; i++) if (sym[i] === s) count++;
        const st = new Float64Array(count);
        const sv = new Float64Array(count);
        const sf = new Uint8Array(count);
        for (let i = 0, k = 0; i < total; i++) {
          if (sym[i] === s) {
            st[k] = times[i]!;
            sv[k] = symEquityAll[i]!;
            sf[k++] = flagsAll[i]! & 2 ? 1 : 0;
          }
        }
        const bh = bhOf(s);
        if (bh !== null) bhs.push(bh);
        perSymbol[job.symbols[s]!] = symbolMetrics({ times: st, values: sv, initial: job.initialCapital, inMarket: sf }, tradesOf(s), bh);
      }
      const overall = symbolMetrics(
        { times: equityTimes, values: equity, initial: job.initialCapital, inMarket },
        tradesOf(null),
        bhs.length ? bhs.reduce((a, b) => a + b, 0) / bhs.length : null,
      );
      metrics = { ...overall, perSymbol };
    }
    return {
      symbols: job.symbols,
      equityTimes: nSym === 1 ? null : equityTimes,
      equity,
      trades,
      logs,
      metrics,
      meta,
      params,
      bars: total,
      cpuMs,
      ...(journal === undefined ? {} : { journal }),
    };
  } catch (caught) {
    const error = withSourceLocation(caught, locator);
    if (error instanceof SandboxError) {
      throw new SandboxError(error.code, error.message, { details: error.details, logs: error.logs.length ? error.logs : logs, cpuMs: session.cpuMs() });
    }
    throw error;
  } finally {
    session.dispose();
  }
}

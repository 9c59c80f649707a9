import type { QuickJSHandle } from 'quickjs-emscripten-core';
import type { LiveExitKind } from '../engine/model/codes.js';
import type { LiveAccountState, LiveIntent } from '../engine/guest/live-state.js';
import { isStratboxError } from '../errors/stratbox-error.js';
import type { ExchangeCandle } from '../ports/exchange-gateway.js';
import { indicatorOutputs } from '../indicators/indicator-kinds.js';
import { buildHistorySeed } from '../engine/history-seed.js';
import { createHostIndicator, guestIndicatorSpec, type HostIndicator } from '../engine/host-indicator.js';
import { MAX_HISTORY } from '../engine/guest/candle-history.js';
import { runTimeframes, type RunTimeframe } from '../engine/run-timeframes.js';
import type { TimeframeName } from '../ports/market-data.js';
import { guestScript } from '../engine/guest-script.js';
import { openQuickJsSession } from '../sandbox/quickjs-session.js';
import type { QuickJSBuild } from '../sandbox/quickjs-variants.js';
import { SandboxError, type SandboxErrorCode } from '../sandbox/sandbox-error.js';
import { createSourceLocator, withSourceLocation, type SourceLocator } from '../sandbox/source-map.js';
import { compileStrategySourceAsync } from '../sandbox/strategy-source.js';
import { parseStrategyMeta, parseStrategyParams, type ParamValue, type StrategyMeta } from '../sandbox/strategy-meta.js';

/*
 * A live deployment's long-lived QuickJS session, inside a sandbox child process (see
 * live-worker-entry.ts). One WASM instance and runtime per deployment, with a memory limit and
 * a stack limit for the whole session and a CPU-time budget PER CALL (each closed candle, each
 * order event), so a strategy that runs for months never exhausts a budget meant for one call.
 * Indicators are computed here, in trusted code, from the candles the host feeds in.
 */

/** Limits of one live session. */
export interface LiveLimits {
  build: QuickJSBuild;
  memoryLimitBytes: number;
  stackLimitBytes: number;
  /** CPU time of one call into the strategy (and of loading the module). */
  callCpuTimeMs: number;
  /** Log lines and characters one call may write. */
  maxLogLines: number;
  maxLogBytes: number;
  maxIndicators: number;
}

export interface LiveOpenInput {
  source: string;
  symbols: string[];
  /** Request params (strings), parsed against `meta.params`. */
  params: Record<string, string>;
  seed: number;
  startTime: number;
}

/** A closed candle of one symbol, as the strategy's `onCandle` gets it. */
export interface LiveCandle extends ExchangeCandle {
  symbol: string;
}

export type { LiveAccountState, LiveIntent } from '../engine/guest/live-state.js';

/** An event for `onOrder`, as docs/strategy-api.md describes it. */
export interface LiveOrderEvent {
  id: string;
  symbol: string;
  side: 'buy' | 'sell';
  type: 'market' | 'limit' | 'stop' | LiveExitKind | 'liquidation';
  status: 'filled' | 'cancelled' | 'rejected';
  quantity: number;
  price: number | null;
  fee: number;
  time: number;
  reason: string | null;
  tag: string | null;
}

export interface LiveLogLine {
  time: number;
  level: 'debug' | 'info' | 'warn' | 'error';
  message: string;
}

export interface LiveCallResult {
  intents: LiveIntent[];
  logs: LiveLogLine[];
  /** CPU milliseconds of this call. */
  cpuMs: number;
}

export interface LiveSession {
  readonly meta: StrategyMeta;
  readonly params: Record<string, ParamValue>;
  /** Feeds closed candles to the indicators only (warm-up, or candles before the warm-up count). */
  history(candles: LiveCandle[]): void;
  /** One closed candle: indicators, stop-loss/take-profit checks, then `onCandle` once the warm-up count is reached. */
  candle(candle: LiveCandle, state: LiveAccountState): LiveCallResult;
  /** One order event for `onOrder`. */
  order(event: LiveOrderEvent, state: LiveAccountState): LiveCallResult;
  dispose(): void;
}

/** Keep at most this many candles per symbol, for indicators and histories registered late. */
const KEEP_CANDLES = 100_001;

/** The timeframe a deployment runs on: the strategy's `meta.timeframe`, else 1h. */
export function liveTimeframe(meta: StrategyMeta): TimeframeName {
  return (meta.timeframe ?? '1h') as TimeframeName;
}

interface SymbolHistory {
  candles: LiveCandle[];
  count: number;
}

function problemsToSandbox(error: unknown, code: SandboxErrorCode): never {
  if (isStratboxError(error)) throw new SandboxError(code, error.message, { details: error.details });
  throw error;
}

/** The functions of the live guest runtime (engine/guest/live-runtime.ts) the session calls. */
const LIVE_RUNTIME_FUNCTIONS = ['readMeta', 'start', 'candle', 'order', 'lastError', 'describe'] as const;

/** Opens a live session: compiles the source, loads the module, checks `meta` and the params. Rejects with a `SandboxError`. */
export async function openLiveSession(input: LiveOpenInput, limits: LiveLimits): Promise<LiveSession> {
  let compiled;
  try {
    compiled = await compileStrategySourceAsync(input.source);
  } catch (error) {
    problemsToSandbox(error, 'INVALID_STRATEGY');
  }
  const locator: SourceLocator = createSourceLocator(compiled.mappings);
  const session = await openQuickJsSession({
    limits: { build: limits.build, memoryLimitBytes: limits.memoryLimitBytes, stackLimitBytes: limits.stackLimitBytes },
    cpu: { timeMs: limits.callCpuTimeMs, per: 'call' },
    runtime: {
      script: await guestScript('live-runtime'),
      filename: 'stratbox-live-runtime.js',
      boot: { seed: input.seed >>> 0, startTime: input.startTime, maxLogLines: limits.maxLogLines, maxLogBytes: limits.maxLogBytes },
      functions: LIVE_RUNTIME_FUNCTIONS,
    },
  });
  const vm = session.vm;
  /** Set by a failed call: the strategy's state is unknown, so the session takes no more calls. */
  let failed = false;
  let hostFns: QuickJSHandle[] = [];

  const dispose = () => {
    try {
      for (const h of hostFns) h.dispose();
    } catch {
      // a runtime left inconsistent by a failed call: the WASM instance is dropped anyway
    }
    hostFns = [];
    session.dispose();
  };

  const nSym = input.symbols.length;
  const histories: SymbolHistory[] = input.symbols.map(() => ({ candles: [], count: 0 }));
  const indicators = new Map<string, HostIndicator>();
  let timeframes: RunTimeframe[] = [];
  let meta: StrategyMeta;
  let params: Record<string, ParamValue>;

  try {
    let ns: QuickJSHandle;
    try {
      ns = session.loadModule(compiled.code);
    } catch (error) {
      if (error instanceof SandboxError && error.code === 'STRATEGY_ERROR') {
        throw withSourceLocation(new SandboxError('STRATEGY_ERROR', `The strategy threw while loading: ${error.message}`, { details: error.details }), locator);
      }
      throw withSourceLocation(error, locator);
    }
    const metaHandle = session.call('readMeta', ns);
    const metaJson = vm.getString(metaHandle);
    metaHandle.dispose();
    try {
      meta = parseStrategyMeta(JSON.parse(metaJson));
    } catch (error) {
      problemsToSandbox(error, 'INVALID_STRATEGY');
    }
    try {
      params = parseStrategyParams(meta.params, input.params);
    } catch (error) {
      problemsToSandbox(error, 'INVALID_PARAMS');
    }

    const tfs = runTimeframes(liveTimeframe(meta), meta.timeframes as TimeframeName[] | undefined);
    if ('problem' in tfs) throw new SandboxError('INVALID_STRATEGY', tfs.problem);
    timeframes = tfs;
    const baseMs = timeframes[0]!.ms;
    const knownSymbol = (s: number) => Number.isInteger(s) && s >= 0 && s < nSym;
    const knownTimeframe = (tf: number) => Number.isInteger(tf) && tf >= 0 && tf < timeframes.length;
    const columnsOf = (s: number) => {
      const c = histories[s]!.candles;
      return {
        time: c.map((x) => x.time),
        open: c.map((x) => x.open),
        high: c.map((x) => x.high),
        low: c.map((x) => x.low),
        close: c.map((x) => x.close),
        volume: c.map((x) => x.volume),
      };
    };
    const hostInd = vm.newFunction('hostInd', (kindH, sH, tfH, a0H, a1H, a2H, outH) => {
      const s = vm.getNumber(sH);
      const tf = vm.getNumber(tfH);
      const out = vm.getNumber(outH);
      if (!knownSymbol(s) || !knownTimeframe(tf)) return { error: vm.newError({ name: 'TypeError', message: 'unknown indicator' }) };
      const spec = guestIndicatorSpec(vm.getNumber(kindH), vm.getNumber(a0H), vm.getNumber(a1H), vm.getNumber(a2H));
      if (typeof spec === 'string') return { error: vm.newError({ name: 'TypeError', message: spec }) };
      const key = `${spec.kind}/${s}/${tf}/${spec.args.join(',')}`;
      let ind = indicators.get(key);
      if (!ind) {
        const used = [...indicators.values()].reduce((n, i) => n + i.outputs, 0);
        if (used + indicatorOutputs(spec.kind) > limits.maxIndicators)
          return { error: vm.newError({ name: 'RangeError', message: `A strategy can use at most ${limits.maxIndicators} indicator series` }) };
        ind = createHostIndicator(spec, s, timeframes[tf]!.ms, baseMs);
        for (const c of histories[s]!.candles) ind.feed(c.time, c.open, c.high, c.low, c.close, c.volume);
        indicators.set(key, ind);
      }
      return vm.newNumber(ind.last[out] ?? NaN);
    });
    const hostHistory = vm.newFunction('hostHistory', (sH, tfH) => {
      const s = vm.getNumber(sH);
      const tf = vm.getNumber(tfH);
      if (!knownSymbol(s) || !knownTimeframe(tf)) return { error: vm.newError({ name: 'TypeError', message: 'unknown history' }) };
      const seed = buildHistorySeed(columnsOf(s), histories[s]!.candles.length, timeframes[tf]!.ms, baseMs, MAX_HISTORY);
      return vm.newArrayBuffer(seed.buffer as ArrayBuffer);
    });
    hostFns = [hostInd, hostHistory];
    const cfg = vm.newString(JSON.stringify({ symbols: input.symbols, timeframes, params }));
    try {
      session.call('start', ns, hostInd, hostHistory, cfg).dispose();
    } catch (error) {
      throw withSourceLocation(error, locator);
    }
    cfg.dispose();
    ns.dispose();
  } catch (error) {
    dispose();
    throw error;
  }

  const symbolIndex = new Map(input.symbols.map((s, i) => [s, i]));

  function push(candle: LiveCandle): number {
    const s = symbolIndex.get(candle.symbol);
    if (s === undefined) throw new SandboxError('INVALID_JOB', `Candle of unknown symbol ${candle.symbol}`);
    const h = histories[s]!;
    h.candles.push(candle);
    h.count++;
    if (h.candles.length > KEEP_CANDLES) h.candles.shift();
    for (const ind of indicators.values()) if (ind.s === s) ind.feed(candle.time, candle.open, candle.high, candle.low, candle.close, candle.volume);
    return h.count;
  }

  function call(fn: 'candle' | 'order', args: string[], extra: QuickJSHandle[] = []): LiveCallResult {
    if (failed) throw new SandboxError('CRASHED', 'The live session can no longer be used after an earlier failure');
    const started = session.cpuMs();
    const handles = args.map((a) => vm.newString(a));
    let out: string | null;
    try {
      const h = session.call(fn, ...handles, ...extra);
      out = vm.typeof(h) === 'string' ? vm.getString(h) : null;
      h.dispose();
      if (out === null) throw session.lastError();
    } catch (error) {
      failed = true;
      throw withSourceLocation(error, locator);
    } finally {
      for (const h of handles) h.dispose();
    }
    const parsed = JSON.parse(out) as { intents: LiveIntent[]; logs: Array<[number, LiveLogLine['level'], string]> };
    return {
      intents: parsed.intents,
      logs: parsed.logs.map(([time, level, message]) => ({ time, level, message })),
      cpuMs: session.cpuMs() - started,
    };
  }

  const warmup = meta.warmup ?? 0;
  return {
    meta,
    params,
    history(candles) {
      for (const c of candles) push(c);
    },
    candle(candle, state) {
      const count = push(candle);
      const callStrategy = count >= warmup;
      const flag = callStrategy ? vm.true : vm.false;
      return call('candle', [JSON.stringify(state), JSON.stringify(candle)], [flag]);
    },
    order(event, state) {
      return call('order', [JSON.stringify(state), JSON.stringify(event)]);
    },
    dispose,
  };
}

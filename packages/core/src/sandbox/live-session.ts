import type { QuickJSContext, QuickJSHandle, QuickJSRuntime } from 'quickjs-emscripten-core';
import { isStratboxError } from '../errors/stratbox-error.js';
import type { ExchangeCandle } from '../ports/exchange-gateway.js';
import { createIndicator, type StreamingIndicator } from '../indicators/create-indicator.js';
import { INDICATOR_KINDS, indicatorSpecProblem } from '../indicators/indicator-kinds.js';
import { GUEST_LIVE_RUNTIME_SOURCE } from './guest-live-runtime.js';
import { newQuickJSInstance, type QuickJSBuild } from './quickjs-variants.js';
import { SandboxError, type SandboxErrorCode } from './sandbox-error.js';
import { createSourceLocator, mapStack, type SourceLocator } from './source-map.js';
import { compileStrategySourceAsync } from './strategy-source.js';
import { parseStrategyMeta, parseStrategyParams, type ParamValue, type StrategyMeta } from './strategy-meta.js';

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

/** The account as the strategy sees it through `ctx` (from the exchange and the Store). */
export interface LiveAccountState {
  cash: number;
  equity: number;
  positions: Array<{
    symbol: string;
    side: 'long' | 'short';
    quantity: number;
    entryPrice: number | null;
    entryTime: number | null;
    margin: number | null;
    liquidationPrice: number | null;
    unrealizedPnl: number | null;
  }>;
  /** Open orders, with the ids the strategy knows them by. */
  orders: Array<{
    id: string;
    symbol: string;
    side: 'buy' | 'sell';
    type: 'market' | 'limit' | 'stop';
    price: number | null;
    quantity: number | null;
    size: number | null;
    stopLoss: number | null;
    takeProfit: number | null;
    reduceOnly: boolean;
    closeAll: boolean;
    tag: string | null;
    time: number;
  }>;
}

/** What the strategy asked for during one call. */
export type LiveIntent =
  | {
      kind: 'place';
      order: LiveAccountState['orders'][number] & {
        /** Set on a close made for a crossed stop-loss or take-profit. */
        exit?: 'stopLoss' | 'takeProfit' | null;
      };
    }
  | { kind: 'cancel'; id: string };

/** An event for `onOrder`, as docs/strategy-api.md describes it. */
export interface LiveOrderEvent {
  id: string;
  symbol: string;
  side: 'buy' | 'sell';
  type: 'market' | 'limit' | 'stop' | 'stopLoss' | 'takeProfit' | 'liquidation';
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

function cpuMicros(): number {
  const u = process.cpuUsage();
  return u.user + u.system;
}

/** Keep at most this many candles per symbol, for indicators registered late. */
const MAX_HISTORY = 100_001;

interface SymbolHistory {
  high: number[];
  low: number[];
  close: number[];
  count: number;
}

interface HostIndicator {
  s: number;
  state: StreamingIndicator;
  last: Float64Array;
}

function problemsToSandbox(error: unknown, code: SandboxErrorCode): never {
  if (isStratboxError(error)) throw new SandboxError(code, error.message, { details: error.details });
  throw error;
}

/** Opens a live session: compiles the source, loads the module, checks `meta` and the params. Rejects with a `SandboxError`. */
export async function openLiveSession(input: LiveOpenInput, limits: LiveLimits): Promise<LiveSession> {
  let compiled;
  try {
    compiled = await compileStrategySourceAsync(input.source);
  } catch (error) {
    problemsToSandbox(error, 'INVALID_STRATEGY');
  }
  const locator: SourceLocator = createSourceLocator(compiled.mappings);
  const wasm = await newQuickJSInstance(limits.build);
  const runtime: QuickJSRuntime = wasm.newRuntime();
  runtime.setMemoryLimit(limits.memoryLimitBytes);
  runtime.setMaxStackSize(limits.stackLimitBytes);
  let deadline = Infinity;
  let interrupted = false;
  let nextCheck = 0;
  runtime.setInterruptHandler(() => {
    if (interrupted) return true;
    const t = performance.now();
    if (t < nextCheck) return false;
    nextCheck = t + 5;
    if (cpuMicros() > deadline) interrupted = true;
    return interrupted;
  });
  const vm: QuickJSContext = runtime.newContext();
  const fns = new Map<string, QuickJSHandle>();
  let broken = false;

  const timeout = () => new SandboxError('TIMEOUT', `The strategy used more than ${limits.callCpuTimeMs} ms of CPU time in one call`);

  function fromGuest(kind: string, message: string, stack: string): SandboxError {
    if (kind === 'MEMORY_LIMIT') return new SandboxError('MEMORY_LIMIT', `The strategy ran out of memory (limit ${limits.memoryLimitBytes} bytes)`);
    if (kind === 'STACK_OVERFLOW') return new SandboxError('STACK_OVERFLOW', `Stack overflow: too deep recursion (${message})`, { details: { stack } });
    const mapped = stack ? mapStack(stack, locator) : '';
    const first = /strategy\.ts:(\d+):(\d+)/.exec(mapped);
    const where = first ? ` (line ${first[1]}, column ${first[2]})` : '';
    return new SandboxError((kind || 'STRATEGY_ERROR') as SandboxErrorCode, `${message}${where}`, { details: { stack: mapped } });
  }

  function describeHandle(errorHandle: QuickJSHandle): SandboxError {
    if (interrupted) return timeout();
    const describe = fns.get('describe');
    try {
      if (describe) {
        const r = vm.callFunction(describe, vm.undefined, errorHandle);
        if ('value' in r && r.value) {
          const [kind, message, stack] = JSON.parse(vm.getString(r.value)) as [string, string, string];
          r.value.dispose();
          if (interrupted) return timeout();
          return fromGuest(kind, message, stack);
        }
        r.error?.dispose();
      }
    } catch {
      // describing failed (out of memory again)
    }
    return interrupted ? timeout() : new SandboxError('STRATEGY_ERROR', 'The strategy failed');
  }

  /** Runs one call into the guest under a fresh CPU budget. */
  function guarded<T>(fn: () => T): T {
    if (broken) throw new SandboxError('CRASHED', 'The live session can no longer be used after an earlier failure');
    deadline = cpuMicros() + limits.callCpuTimeMs * 1000;
    interrupted = false;
    nextCheck = 0;
    try {
      return fn();
    } catch (error) {
      broken = true;
      if (error instanceof SandboxError) throw error;
      if (interrupted) throw timeout();
      if (error instanceof RangeError && /call stack/i.test(error.message))
        throw new SandboxError('STACK_OVERFLOW', 'Stack overflow: too deep recursion inside a built-in function');
      if (error instanceof Error && /memory|allocate/i.test(error.message)) throw new SandboxError('MEMORY_LIMIT', 'The strategy ran out of memory');
      throw new SandboxError('CRASHED', `The sandbox failed: ${error instanceof Error ? error.message : String(error)}`);
    } finally {
      deadline = Infinity;
    }
  }

  function unwrap(result: ReturnType<QuickJSContext['callFunction']>): QuickJSHandle {
    if ('error' in result && result.error) {
      const err = describeHandle(result.error);
      result.error.dispose();
      throw err;
    }
    return (result as { value: QuickJSHandle }).value;
  }

  function lastError(): SandboxError {
    const h = unwrap(vm.callFunction(fns.get('lastError')!, vm.undefined));
    const [kind, message, stack] = JSON.parse(vm.getString(h)) as [string, string, string];
    h.dispose();
    return fromGuest(kind, message, stack);
  }

  const dispose = () => {
    try {
      for (const h of fns.values()) h.dispose();
      vm.dispose();
      runtime.dispose();
    } catch {
      // a runtime left inconsistent by a failed call: the WASM instance is dropped anyway
    }
  };

  const nSym = input.symbols.length;
  const histories: SymbolHistory[] = input.symbols.map(() => ({ high: [], low: [], close: [], count: 0 }));
  const indicators = new Map<string, HostIndicator>();
  const scratch = new Float64Array(3);
  let meta: StrategyMeta;
  let params: Record<string, ParamValue>;

  try {
    const factory = guarded(() => unwrap(vm.evalCode(GUEST_LIVE_RUNTIME_SOURCE, 'stratbox-live-runtime.js')));
    const boot = vm.newString(
      JSON.stringify({ seed: input.seed >>> 0, startTime: input.startTime, maxLogLines: limits.maxLogLines, maxLogBytes: limits.maxLogBytes }),
    );
    const api = guarded(() => unwrap(vm.callFunction(factory, vm.undefined, boot)));
    boot.dispose();
    factory.dispose();
    for (const name of ['readMeta', 'start', 'candle', 'order', 'lastError', 'describe']) fns.set(name, vm.getProp(api, name));
    api.dispose();

    let ns: QuickJSHandle;
    try {
      ns = guarded(() => unwrap(vm.evalCode(compiled.code, 'strategy.js', { type: 'module' })));
    } catch (error) {
      if (error instanceof SandboxError && error.code === 'STRATEGY_ERROR') {
        throw new SandboxError('STRATEGY_ERROR', `The strategy threw while loading: ${error.message}`, { details: error.details });
      }
      throw error;
    }
    broken = false;
    const metaHandle = guarded(() => unwrap(vm.callFunction(fns.get('readMeta')!, vm.undefined, ns)));
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

    const hostInd = vm.newFunction('hostInd', (kindH, sH, periodH, multH, outH) => {
      const kind = INDICATOR_KINDS[vm.getNumber(kindH)];
      const s = vm.getNumber(sH);
      const period = vm.getNumber(periodH);
      const multiplier = vm.getNumber(multH);
      const out = vm.getNumber(outH);
      const key = `${kind}/${s}/${period}/${multiplier}`;
      let ind = indicators.get(key);
      if (!ind) {
        const spec = { kind: kind!, period, multiplier: kind === 'bollinger' ? multiplier : undefined };
        const problem = kind === undefined || !(s >= 0 && s < nSym) ? 'unknown indicator' : indicatorSpecProblem(spec);
        if (problem) return { error: vm.newError({ name: 'TypeError', message: problem }) };
        const weight = kind === 'bollinger' ? 3 : 1;
        const used = [...indicators.values()].reduce((n, i) => n + i.last.length, 0);
        if (used + weight > limits.maxIndicators)
          return { error: vm.newError({ name: 'RangeError', message: `A strategy can use at most ${limits.maxIndicators} indicator series` }) };
        const state = createIndicator(spec);
        ind = { s, state, last: new Float64Array(state.outputs).fill(NaN) };
        const h = histories[s]!;
        for (let i = 0; i < h.close.length; i++) {
          state.update(h.high[i]!, h.low[i]!, h.close[i]!, scratch);
          for (let o = 0; o < state.outputs; o++) ind.last[o] = scratch[o]!;
        }
        indicators.set(key, ind);
      }
      return vm.newNumber(ind.last[out] ?? NaN);
    });
    const cfg = vm.newString(JSON.stringify({ symbols: input.symbols, params }));
    guarded(() => unwrap(vm.callFunction(fns.get('start')!, vm.undefined, ns, hostInd, cfg))).dispose();
    cfg.dispose();
    fns.set('hostInd', hostInd);
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
    h.high.push(candle.high);
    h.low.push(candle.low);
    h.close.push(candle.close);
    h.count++;
    if (h.close.length > MAX_HISTORY) {
      h.high.shift();
      h.low.shift();
      h.close.shift();
    }
    for (const ind of indicators.values()) {
      if (ind.s !== s) continue;
      ind.state.update(candle.high, candle.low, candle.close, scratch);
      for (let o = 0; o < ind.last.length; o++) ind.last[o] = scratch[o]!;
    }
    return h.count;
  }

  function call(fn: 'candle' | 'order', args: string[], extra: QuickJSHandle[] = []): LiveCallResult {
    const started = cpuMicros();
    const handles = args.map((a) => vm.newString(a));
    let out: string | null;
    try {
      const h = guarded(() => unwrap(vm.callFunction(fns.get(fn)!, vm.undefined, ...handles, ...extra)));
      out = vm.typeof(h) === 'string' ? vm.getString(h) : null;
      h.dispose();
    } finally {
      for (const h of handles) h.dispose();
    }
    if (out === null) {
      broken = true;
      throw lastError();
    }
    const parsed = JSON.parse(out) as { intents: LiveIntent[]; logs: Array<[number, LiveLogLine['level'], string]> };
    return {
      intents: parsed.intents,
      logs: parsed.logs.map(([time, level, message]) => ({ time, level, message })),
      cpuMs: (cpuMicros() - started) / 1000,
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

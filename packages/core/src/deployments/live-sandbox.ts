import { fork, type ChildProcess } from 'node:child_process';
import { DEFAULT_QUICKJS_BUILD, type QuickJSBuild } from '../sandbox/quickjs-variants.js';
import { SandboxError } from '../sandbox/sandbox-error.js';
import type { LiveAccountState, LiveCallResult, LiveCandle, LiveLimits, LiveOpenInput, LiveOrderEvent } from './live-session.js';
import type { LiveChildMessage, LiveParentMessage } from './live-worker-protocol.js';
import type { ParamValue, StrategyMeta } from '../sandbox/strategy-meta.js';
import { resolveWorkerEntry } from '../sandbox/worker-path.js';

/** Options of `createLiveSandbox`. Defaults suit a shared server. */
export interface LiveSandboxOptions {
  build?: QuickJSBuild;
  /** QuickJS heap limit per deployment. Default 64 MiB. */
  memoryLimitBytes?: number;
  /** QuickJS stack limit. Default 256 KiB. */
  stackLimitBytes?: number;
  /** CPU time of one call (one candle, one order event). Default 1 s. */
  callCpuTimeMs?: number;
  /** Wall-clock time of one call, after which the child is killed (TIMEOUT). Default 2 * callCpuTimeMs + 5 s. */
  callWallTimeMs?: number;
  /**
   * Wall-clock time a new child may take to start and report ready (it loads QuickJS), after
   * which it is killed and `open` rejects with TIMEOUT (`details: { stage: 'start' }`). Default 30 s.
   */
  readyTimeoutMs?: number;
  /** Log lines and characters per call. Defaults 1,000 and 100,000. */
  maxLogLines?: number;
  maxLogBytes?: number;
  maxIndicators?: number;
  /** `--max-old-space-size` of a child, in MB. Default 256. */
  maxOldSpaceSizeMb?: number;
  /**
   * Override the worker entry file and the Node flags it is started with (tests, bundlers): a host
   * that bundles core gives its bundle of `@stratbox/core/sandbox/live-worker-entry` (README, "Bundling a host app").
   */
  workerPath?: string;
  execArgv?: string[];
}

/** A live deployment's strategy, running in its own sandbox child process. */
export interface LiveSandboxSession {
  readonly meta: StrategyMeta;
  readonly params: Record<string, ParamValue>;
  readonly pid: number | undefined;
  history(candles: LiveCandle[]): Promise<void>;
  candle(candle: LiveCandle, state: LiveAccountState): Promise<LiveCallResult>;
  order(event: LiveOrderEvent, state: LiveAccountState): Promise<LiveCallResult>;
  /** Resolves with a CRASHED error if the child dies before `close()`. */
  readonly crashed: Promise<SandboxError>;
  /** Stops the child. Safe to call twice. */
  close(): Promise<void>;
}

export interface LiveSandbox {
  /**
   * Starts a child, opens the strategy in it and checks meta and params. Rejects with a
   * `SandboxError` (INVALID_STRATEGY, INVALID_PARAMS, STRATEGY_ERROR, TIMEOUT, CRASHED...).
   */
  open(input: LiveOpenInput): Promise<LiveSandboxSession>;
  /** Sessions currently open. */
  stats(): { sessions: number; pids: number[] };
  /** Closes every session. */
  close(): Promise<void>;
}

/** The live child entry (live-worker-entry.ts), as built and published. */
const LIVE_WORKER = { name: 'live-worker-entry', source: 'deployments/live-worker-entry.ts', option: 'deployments: { sandbox: { workerPath } }' };

interface Pending {
  resolve(value: unknown): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
}

/**
 * The live-trading sandbox: one child process per running deployment, holding a long-lived
 * QuickJS session (see live-session.ts) with a memory and stack limit for the session and a
 * CPU budget per call. The host kills a child whose call outlives the wall-clock limit; a dead
 * child fails its pending call and resolves `crashed`, and the supervisor fails the deployment.
 */
export function createLiveSandbox(options: LiveSandboxOptions = {}): LiveSandbox {
  const callCpuTimeMs = options.callCpuTimeMs ?? 1000;
  const limits: LiveLimits = {
    build: options.build ?? DEFAULT_QUICKJS_BUILD,
    memoryLimitBytes: options.memoryLimitBytes ?? 64 * 1024 * 1024,
    stackLimitBytes: options.stackLimitBytes ?? 256 * 1024,
    callCpuTimeMs,
    maxLogLines: options.maxLogLines ?? 1000,
    maxLogBytes: options.maxLogBytes ?? 100_000,
    maxIndicators: options.maxIndicators ?? 64,
  };
  const callWallTimeMs = options.callWallTimeMs ?? callCpuTimeMs * 2 + 5000;
  const readyTimeoutMs = options.readyTimeoutMs ?? 30_000;
  const sessions = new Set<LiveSandboxSession>();
  let closed = false;

  async function open(input: LiveOpenInput): Promise<LiveSandboxSession> {
    if (closed) throw new SandboxError('POOL_CLOSED', 'The live sandbox was closed');
    const w = options.workerPath ? { path: options.workerPath, execArgv: options.execArgv ?? [] } : resolveWorkerEntry(LIVE_WORKER);
    const child: ChildProcess = fork(w.path, [limits.build], {
      execArgv: [...w.execArgv, `--max-old-space-size=${options.maxOldSpaceSizeMb ?? 256}`, '--stack-size=3800'],
      serialization: 'advanced',
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      env: { ...process.env, NODE_OPTIONS: '' },
    });
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString('utf8')).slice(-2000);
    });
    const pending = new Map<number, Pending>();
    let nextId = 1;
    let ending = false;
    let killReason: 'TIMEOUT' | null = null;
    let onCrash: (error: SandboxError) => void = () => {};
    const crashed = new Promise<SandboxError>((resolve) => (onCrash = resolve));
    let readyResolve: () => void = () => {};
    const ready = new Promise<void>((resolve) => (readyResolve = resolve));

    child.on('message', (m: LiveChildMessage) => {
      if (m.type === 'ready') return readyResolve();
      const p = pending.get(m.id);
      if (!p) return;
      pending.delete(m.id);
      clearTimeout(p.timer);
      if (m.type === 'error') p.reject(new SandboxError(m.code, m.message, { details: m.details ?? undefined }));
      else if (m.type === 'opened') p.resolve({ meta: m.meta, params: m.params });
      else p.resolve(m.result);
    });
    const exited = new Promise<void>((resolve) => {
      child.on('exit', (code, signal) => {
        const error =
          killReason === 'TIMEOUT'
            ? new SandboxError('TIMEOUT', `The strategy ran past the ${callWallTimeMs} ms wall-clock limit of one call and its process was stopped`)
            : new SandboxError('CRASHED', `The sandbox process ${signal ? `was killed by ${signal}` : `exited with code ${code}`}`, {
                details: { stderr: stderr.slice(-500) },
              });
        for (const p of pending.values()) {
          clearTimeout(p.timer);
          p.reject(ending ? new SandboxError('POOL_CLOSED', 'The live session was closed') : error);
        }
        pending.clear();
        readyResolve();
        if (!ending) onCrash(error);
        resolve();
      });
    });
    child.on('error', () => child.kill('SIGKILL'));

    function request<T>(message: LiveParentMessage extends infer M ? (M extends { id: number } ? Omit<M, 'id'> : never) : never): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        if (child.exitCode !== null || child.signalCode !== null) return reject(new SandboxError('CRASHED', 'The sandbox process is gone'));
        const id = nextId++;
        const timer = setTimeout(() => {
          killReason = 'TIMEOUT';
          child.kill('SIGKILL');
        }, callWallTimeMs);
        pending.set(id, { resolve: resolve as (v: unknown) => void, reject, timer });
        child.send({ ...message, id } as LiveParentMessage);
      });
    }

    let session: LiveSandboxSession | null = null;
    async function close() {
      if (ending) return exited;
      ending = true;
      if (session) sessions.delete(session);
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    }

    // A child that never reports ready (a stalled start, an overloaded host) is killed: nothing waits for it forever.
    let startTimedOut = false;
    const startTimer = setTimeout(() => {
      startTimedOut = true;
      void close();
    }, readyTimeoutMs);
    await ready;
    clearTimeout(startTimer);
    if (startTimedOut) {
      await exited;
      throw new SandboxError('TIMEOUT', `The sandbox process did not start within ${readyTimeoutMs} ms and was stopped`, { details: { stage: 'start' } });
    }
    let opened: { meta: StrategyMeta; params: Record<string, ParamValue> };
    try {
      opened = await request({ type: 'open', input, limits });
    } catch (error) {
      await close();
      throw error;
    }
    session = {
      meta: opened.meta,
      params: opened.params,
      pid: child.pid,
      crashed,
      history: (candles) => request({ type: 'history', candles }),
      candle: (candle, state) => request({ type: 'candle', candle, state }),
      order: (event, state) => request({ type: 'order', event, state }),
      close,
    };
    sessions.add(session);
    return session;
  }

  return {
    open,
    stats() {
      return { sessions: sessions.size, pids: [...sessions].map((s) => s.pid).filter((p): p is number => p !== undefined) };
    },
    async close() {
      closed = true;
      await Promise.all([...sessions].map((s) => s.close()));
    },
  };
}

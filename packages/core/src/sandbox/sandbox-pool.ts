import { fork, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { normalizeJob, type BacktestJob } from '../backtests/engine/backtest-job.js';
import { buildBacktestResult, type BacktestResult } from '../backtests/engine/build-result.js';
import type { EngineLimits } from '../backtests/engine/run-in-guest.js';
import { StratboxError } from '../errors/stratbox-error.js';
import { createFairQueue, type FairQueue } from '../util/fair-queue.js';
import { DEFAULT_QUICKJS_BUILD, type QuickJSBuild } from './quickjs-variants.js';
import { SandboxError, type SandboxErrorCode } from './sandbox-error.js';
import type { ChildMessage, ParentMessage, StrategyInfo } from './worker-protocol.js';
import { resolveWorkerEntry } from './worker-path.js';

/** Options of `createSandboxPool`. Every limit has a default suited to a shared server. */
export interface SandboxPoolOptions {
  /** Child processes for backtests, each running one at a time. Default: CPU count - 1, at least 1. */
  size?: number;
  /**
   * Child processes kept for strategy checks (`inspectStrategy`, the save-time check), so that a
   * check never waits behind a backtest. Default 1.
   */
  inspectSize?: number;
  /**
   * Backtests of one tenant (user) running at once. Tenants take turns for the free children, so
   * one tenant's many queued runs delay another's by at most one run. Default: half the
   * children, at least 1.
   */
  maxRunningPerTenant?: number;
  /** QuickJS build. Default `quickjs` (faster than `quickjs-ng` in bench/engine.bench.ts). */
  build?: QuickJSBuild;
  /** QuickJS heap limit per job. Default 256 MiB. */
  memoryLimitBytes?: number;
  /** QuickJS stack limit per job. Default 256 KiB (the child's V8 stack is raised to ~3.8 MB). */
  stackLimitBytes?: number;
  /** CPU time per backtest, enforced inside the child by the interrupt handler. Default 30 s. */
  cpuTimeMs?: number;
  /**
   * Wall-clock time per backtest from its start, after which the host kills the child (a guest
   * stuck where the interrupt handler cannot reach it, or starved of CPU). Default cpuTimeMs + 15 s.
   */
  wallTimeMs?: number;
  /** Resident memory of a child, past which the host kills it. Default 1 GiB. */
  rssLimitBytes?: number;
  /** `--max-old-space-size` of a child, in MB. Default 512. */
  maxOldSpaceSizeMb?: number;
  /** Log lines and characters a run may write with `ctx.log` before it fails with LOG_LIMIT. Defaults 10,000 and 1,000,000. */
  maxLogLines?: number;
  maxLogBytes?: number;
  /** Indicator series per strategy. Default 64. */
  maxIndicators?: number;
  /** Least time between two progress reports of a run. Default 250 ms (a final report always comes). */
  progressIntervalMs?: number;
  /** After a cancel, how long the child has to stop before it is killed. Default 500 ms. */
  cancelGraceMs?: number;
  /** CPU time for evaluating a module in `inspectStrategy`. Default 1 s. */
  inspectCpuTimeMs?: number;
  /** How often the host reads a busy child's resident memory. Default 50 ms. */
  rssPollMs?: number;
  /**
   * Override the worker entry file and the Node flags it is started with (tests, bundlers): a host
   * that bundles core gives its bundle of `@stratbox/core/sandbox/worker-entry` (README, "Bundling a host app").
   */
  workerPath?: string;
  execArgv?: string[];
}

/** Progress of a run: at most a few reports per second, and always a final one. */
export interface BacktestProgress {
  processedBars: number;
  totalBars: number;
  /** processedBars / totalBars, 0..1. */
  progress: number;
}

export interface RunOptions {
  onProgress?: (progress: BacktestProgress) => void;
  /** Whose run this is (a user id): tenants take turns, see `maxRunningPerTenant`. */
  tenant?: string;
  /** Aborting stops the job: a queued job at once, a running one within about a second. */
  signal?: AbortSignal;
}

/** A pool of long-lived child processes that run strategies in QuickJS. */
export interface SandboxPool {
  /**
   * Runs a backtest. Resolves with equity curve, trades and metrics in the contract's shapes;
   * rejects with a `SandboxError` whose `code` says why (TIMEOUT, MEMORY_LIMIT, STACK_OVERFLOW,
   * STRATEGY_ERROR, INVALID_STRATEGY, INVALID_PARAMS, INVALID_JOB, LOG_LIMIT, CRASHED, CANCELLED,
   * POOL_CLOSED) and whose `cpuMs` is the CPU time the run used, however it ended (a killed
   * child's is read from the system before the kill). A failed job never takes the pool down:
   * the next job runs normally.
   */
  runBacktest(job: BacktestJob, options?: RunOptions): Promise<BacktestResult>;
  /**
   * Evaluates a strategy module briefly in the sandbox and returns its validated `meta` and
   * exports. A strategy problem (syntax, no onCandle, bad meta, throwing or looping at load)
   * rejects with `StratboxError('VALIDATION_FAILED')` (400) whose details hold `{ path, message }`
   * problems (with line and column for syntax errors) and the sandbox `code`.
   */
  inspectStrategy(source: string, options?: { signal?: AbortSignal; tenant?: string }): Promise<StrategyInfo>;
  /** Children currently alive (with their process ids) and jobs waiting, both lanes together. */
  stats(): { children: number; busy: number; queued: number; pids: number[] };
  /** Rejects queued and running jobs with POOL_CLOSED and stops every child. */
  close(): Promise<void>;
}

/** Backtests and strategy checks run in children of their own, so a check never waits for a run. */
type Lane = 'run' | 'inspect';

interface Task {
  id: number;
  lane: Lane;
  tenant: string;
  message: ParentMessage;
  /** Wall-clock limit of this task, after which the host kills the child. */
  wallTimeMs: number;
  resolve(value: unknown): void;
  reject(error: Error): void;
  onProgress?: (progress: BacktestProgress) => void;
  signal?: AbortSignal;
  onAbort?: () => void;
  startedAt: number;
  /** The child's CPU time (ms, from /proc) when the task started, if it could be read. */
  cpuAtStart: number | null;
  slot?: Slot;
  settled: boolean;
}

interface Slot {
  lane: Lane;
  child: ChildProcess;
  ready: boolean;
  task: Task | null;
  killReason: SandboxErrorCode | null;
  recycle: boolean;
  wallTimer?: NodeJS.Timeout;
  rssTimer?: NodeJS.Timeout;
  cancelTimer?: NodeJS.Timeout;
  peakRss: number;
  stderr: string;
  /** The child's CPU time (ms) read just before it was killed. */
  cpuAtKill: number | null;
}

const TICKS_PER_SECOND = 100; // USER_HZ: the unit of /proc/<pid>/stat times on Linux

/** CPU time (user + system, ms) a process has used, from /proc; null where unavailable. */
function readCpuMs(pid: number | undefined): number | null {
  if (pid === undefined || process.platform !== 'linux') return null;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // the fields after the command name (which may hold spaces) in parentheses
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]); // utime, stime
    return Number.isFinite(ticks) ? (ticks * 1000) / TICKS_PER_SECOND : null;
  } catch {
    return null;
  }
}

async function readRss(pid: number): Promise<number | null> {
  try {
    const status = await readFile(`/proc/${pid}/status`, 'utf8');
    const m = /VmRSS:\s+(\d+)\s+kB/.exec(status);
    return m ? Number(m[1]) * 1024 : null;
  } catch {
    return null;
  }
}

const KILL_MESSAGES: Partial<Record<SandboxErrorCode, (o: { wallTimeMs: number; rssLimitBytes: number }) => string>> = {
  TIMEOUT: (o) => `The strategy ran past the ${o.wallTimeMs} ms wall-clock limit and its process was stopped`,
  MEMORY_LIMIT: (o) => `The strategy's process went past the ${o.rssLimitBytes} bytes memory limit and was stopped`,
  CANCELLED: () => 'The backtest was cancelled',
  POOL_CLOSED: () => 'The sandbox pool was closed',
};

/**
 * Creates a pool of sandbox child processes. Children start on demand and are reused; a job
 * runs in a fresh QuickJS runtime (and a fresh WASM instance) with memory, stack and CPU limits.
 * The host watches every busy child: past the wall-clock deadline or the resident-memory cap it
 * kills the child and starts a new one, so a guest that escapes QuickJS's own limits (a huge
 * typed array, a long native call such as `new Array(1e9).join()`) still ends in a clear error.
 */
export function createSandboxPool(options: SandboxPoolOptions = {}): SandboxPool {
  const size = Math.max(1, options.size ?? Math.max(1, availableParallelism() - 1));
  const laneSize: Record<Lane, number> = { run: size, inspect: Math.max(1, options.inspectSize ?? 1) };
  const maxRunningPerTenant = Math.max(1, options.maxRunningPerTenant ?? Math.ceil(size / 2));
  const build = options.build ?? DEFAULT_QUICKJS_BUILD;
  const cpuTimeMs = options.cpuTimeMs ?? 30_000;
  const o = {
    memoryLimitBytes: options.memoryLimitBytes ?? 256 * 1024 * 1024,
    stackLimitBytes: options.stackLimitBytes ?? 256 * 1024,
    cpuTimeMs,
    wallTimeMs: options.wallTimeMs ?? cpuTimeMs + 15_000,
    rssLimitBytes: options.rssLimitBytes ?? 1024 * 1024 * 1024,
    maxOldSpaceSizeMb: options.maxOldSpaceSizeMb ?? 512,
    maxLogLines: options.maxLogLines ?? 10_000,
    maxLogBytes: options.maxLogBytes ?? 1_000_000,
    maxIndicators: options.maxIndicators ?? 64,
    progressIntervalMs: options.progressIntervalMs ?? 250,
    cancelGraceMs: options.cancelGraceMs ?? 500,
    inspectCpuTimeMs: options.inspectCpuTimeMs ?? 1000,
    rssPollMs: options.rssPollMs ?? 50,
  };
  const worker = options.workerPath ? { path: options.workerPath, execArgv: options.execArgv ?? [] } : null;
  const slots: Slot[] = [];
  const queues: Record<Lane, FairQueue<Task>> = { run: createFairQueue<Task>(), inspect: createFairQueue<Task>() };
  let nextId = 1;
  let closed = false;
  let startFailures = 0;

  const engineLimits = (): EngineLimits => ({
    build,
    memoryLimitBytes: o.memoryLimitBytes,
    stackLimitBytes: o.stackLimitBytes,
    cpuTimeMs: o.cpuTimeMs,
    maxLogLines: o.maxLogLines,
    maxLogBytes: o.maxLogBytes,
    maxIndicators: o.maxIndicators,
  });

  function settle(task: Task, error: Error | null, value?: unknown) {
    if (task.settled) return;
    task.settled = true;
    if (task.signal && task.onAbort) task.signal.removeEventListener('abort', task.onAbort);
    if (error) task.reject(error);
    else task.resolve(value);
  }

  function clearTimers(slot: Slot) {
    clearTimeout(slot.wallTimer);
    clearInterval(slot.rssTimer);
    clearTimeout(slot.cancelTimer);
    slot.wallTimer = slot.rssTimer = slot.cancelTimer = undefined;
  }

  function kill(slot: Slot, reason: SandboxErrorCode) {
    if (!slot.killReason) slot.killReason = reason;
    slot.cpuAtKill ??= readCpuMs(slot.child.pid);
    slot.child.kill('SIGKILL');
  }

  /** CPU time a task used in a child that was killed or died: from /proc, else its wall time. */
  function cpuOfLostTask(slot: Slot, task: Task): number {
    if (slot.cpuAtKill !== null && task.cpuAtStart !== null) return Math.max(0, slot.cpuAtKill - task.cpuAtStart);
    return performance.now() - task.startedAt;
  }

  /** CPU time of a task the child answered: its own count, or /proc's when it had none. */
  function cpuOfAnsweredTask(slot: Slot, task: Task, reported: number): number {
    if (reported > 0 || task.cpuAtStart === null) return reported;
    const now = readCpuMs(slot.child.pid);
    return now === null ? reported : Math.max(0, now - task.cpuAtStart);
  }

  function idle(slot: Slot) {
    clearTimers(slot);
    slot.task = null;
    if (slot.recycle) {
      kill(slot, 'CRASHED');
      return;
    }
    slot.child.unref();
    (slot.child.channel as { unref?: () => void } | undefined)?.unref?.();
    dispatch();
  }

  function onMessage(slot: Slot, message: ChildMessage) {
    if (message.type === 'ready') {
      slot.ready = true;
      startFailures = 0;
      dispatch();
      return;
    }
    const task = slot.task;
    if (!task || message.id !== task.id) return;
    if (message.type === 'progress') {
      try {
        task.onProgress?.({ processedBars: message.processed, totalBars: message.total, progress: message.total > 0 ? message.processed / message.total : 1 });
      } catch {
        // A throwing progress listener must not break the run.
      }
      return;
    }
    if (message.recycle) slot.recycle = true;
    if (message.type === 'error') {
      const cpuMs = cpuOfAnsweredTask(slot, task, message.cpuMs);
      settle(task, new SandboxError(message.code, message.message, { details: message.details ?? undefined, logs: message.logs, cpuMs }));
    } else if (message.type === 'inspected') {
      settle(task, null, message.info);
    } else if (message.type === 'result') {
      slot.peakRss = Math.max(slot.peakRss, message.peakRssBytes);
      if (message.peakRssBytes > o.rssLimitBytes / 2) slot.recycle = true;
      try {
        const job = (task.message as Extract<ParentMessage, { type: 'run' }>).job;
        settle(task, null, buildBacktestResult(message.output, job, { wallMs: performance.now() - task.startedAt, peakRssBytes: slot.peakRss, build }));
      } catch (error) {
        settle(task, new SandboxError('CRASHED', `Could not read the result: ${(error as Error).message}`));
      }
    }
    idle(slot);
  }

  function spawn(lane: Lane): Slot {
    const w = worker ?? resolveWorkerEntry('worker-entry');
    const child = fork(w.path, [build], {
      // --no-liftoff: compile QuickJS's WASM with the optimizing tier at once, instead of running
      // the baseline tier until V8 tiers up (3x slower for the first second of every child).
      // --stack-size: room for QuickJS's own stack limit to trip before V8's native one does.
      execArgv: [...w.execArgv, `--max-old-space-size=${o.maxOldSpaceSizeMb}`, '--stack-size=3800', '--no-liftoff'],
      serialization: 'advanced',
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      env: { ...process.env, NODE_OPTIONS: '' },
    });
    const slot: Slot = { lane, child, ready: false, task: null, killReason: null, recycle: false, peakRss: 0, stderr: '', cpuAtKill: null };
    child.stderr?.on('data', (chunk: Buffer) => {
      slot.stderr = (slot.stderr + chunk.toString('utf8')).slice(-2000);
    });
    child.on('message', (m: ChildMessage) => onMessage(slot, m));
    child.on('error', () => kill(slot, 'CRASHED'));
    child.on('exit', (code, signal) => {
      clearTimers(slot);
      if (!slot.ready && !slot.killReason && !closed) {
        // A child that dies before it is ready will not do better next time: after three in a
        // row, fail the waiting jobs instead of respawning forever.
        startFailures++;
        if (startFailures >= 3) {
          startFailures = 0;
          const why = slot.stderr.trim().split('\n').slice(-3).join(' ') || `exit code ${code}`;
          for (const task of [...queues.run.drain(), ...queues.inspect.drain()])
            settle(task, new SandboxError('CRASHED', `The sandbox process could not start: ${why}`));
        }
      }
      const index = slots.indexOf(slot);
      if (index >= 0) slots.splice(index, 1);
      const task = slot.task;
      slot.task = null;
      if (task) {
        const reason = slot.killReason;
        const make = reason ? KILL_MESSAGES[reason] : undefined;
        const cpuMs = cpuOfLostTask(slot, task);
        if (reason && make) settle(task, new SandboxError(reason, make({ wallTimeMs: task.wallTimeMs, rssLimitBytes: o.rssLimitBytes }), { cpuMs }));
        else if (task.lane === 'inspect') {
          // the only input of a check is the source: a child that dies on it was killed by it
          settle(
            task,
            new SandboxError('INVALID_STRATEGY', 'The sandbox process died while loading the strategy; the source is too complex to load', { cpuMs }),
          );
        } else {
          const how = signal ? `was killed by ${signal}` : `exited with code ${code}`;
          settle(
            task,
            new SandboxError('CRASHED', `The sandbox process ${how} while running the job`, { details: { stderr: slot.stderr.slice(-500) }, cpuMs }),
          );
        }
      }
      if (!closed) dispatch();
    });
    slots.push(slot);
    return slot;
  }

  function start(slot: Slot, task: Task) {
    slot.task = task;
    task.slot = slot;
    task.startedAt = performance.now();
    task.cpuAtStart = readCpuMs(slot.child.pid);
    slot.child.ref();
    (slot.child.channel as { ref?: () => void } | undefined)?.ref?.();
    slot.wallTimer = setTimeout(() => kill(slot, 'TIMEOUT'), task.wallTimeMs);
    const pid = slot.child.pid;
    if (pid !== undefined && process.platform === 'linux') {
      slot.rssTimer = setInterval(() => {
        void readRss(pid).then((rss) => {
          if (rss === null || slot.task !== task) return;
          slot.peakRss = Math.max(slot.peakRss, rss);
          if (rss > o.rssLimitBytes) kill(slot, 'MEMORY_LIMIT');
        });
      }, o.rssPollMs);
    }
    slot.child.send(task.message);
  }

  function runningOf(tenant: string): number {
    let n = 0;
    for (const slot of slots) if (slot.lane === 'run' && slot.task?.tenant === tenant) n++;
    return n;
  }

  function dispatchLane(lane: Lane) {
    const queue = queues[lane];
    const canTake = lane === 'run' ? (tenant: string) => runningOf(tenant) < maxRunningPerTenant : undefined;
    while (queue.size > 0 && !closed) {
      const laneSlots = slots.filter((s) => s.lane === lane);
      const free = laneSlots.find((s) => s.ready && !s.task && !s.killReason);
      if (free) {
        const task = queue.take(canTake);
        if (!task) break; // every waiting tenant is at its cap
        start(free, task);
        continue;
      }
      const starting = laneSlots.filter((s) => !s.ready && !s.killReason).length;
      if (laneSlots.length < laneSize[lane] && starting < queue.size) {
        spawn(lane);
        continue;
      }
      break;
    }
  }

  function dispatch() {
    dispatchLane('inspect');
    dispatchLane('run');
  }

  interface Submission {
    lane: Lane;
    tenant: string | undefined;
    message: ParentMessage;
    wallTimeMs: number;
    signal: AbortSignal | undefined;
    onProgress?: ((p: BacktestProgress) => void) | undefined;
  }

  function submit<T>({ lane, tenant, message, wallTimeMs, signal, onProgress }: Submission): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      if (closed) return reject(new SandboxError('POOL_CLOSED', 'The sandbox pool was closed'));
      if (signal?.aborted) return reject(new SandboxError('CANCELLED', 'The backtest was cancelled'));
      const task: Task = {
        id: message.type === 'cancel' ? 0 : message.id,
        lane,
        tenant: tenant ?? '',
        message,
        wallTimeMs,
        resolve: resolve as (v: unknown) => void,
        reject,
        onProgress,
        signal,
        startedAt: 0,
        cpuAtStart: null,
        settled: false,
      };
      if (signal) {
        task.onAbort = () => {
          if (queues[lane].remove(task)) {
            settle(task, new SandboxError('CANCELLED', 'The backtest was cancelled'));
            return;
          }
          const slot = task.slot;
          if (!slot || slot.task !== task) return;
          slot.child.send({ type: 'cancel', id: task.id } satisfies ParentMessage);
          slot.cancelTimer = setTimeout(() => {
            if (slot.task === task) kill(slot, 'CANCELLED');
          }, o.cancelGraceMs);
        };
        signal.addEventListener('abort', task.onAbort, { once: true });
      }
      queues[lane].push(task.tenant, task);
      dispatch();
    });
  }

  return {
    runBacktest(job, runOptions = {}) {
      let wire;
      try {
        wire = normalizeJob(job);
      } catch (error) {
        return Promise.reject(error);
      }
      const message: ParentMessage = { type: 'run', id: nextId++, job: wire, limits: engineLimits(), progressIntervalMs: o.progressIntervalMs };
      return submit<BacktestResult>({
        lane: 'run',
        tenant: runOptions.tenant,
        message,
        wallTimeMs: o.wallTimeMs,
        signal: runOptions.signal,
        onProgress: runOptions.onProgress,
      });
    },

    async inspectStrategy(source, inspectOptions = {}) {
      const limits = { ...engineLimits(), cpuTimeMs: o.inspectCpuTimeMs };
      const message: ParentMessage = { type: 'inspect', id: nextId++, source, limits };
      try {
        return await submit<StrategyInfo>({
          lane: 'inspect',
          tenant: inspectOptions.tenant,
          message,
          wallTimeMs: o.inspectCpuTimeMs * 2 + 2000,
          signal: inspectOptions.signal,
        });
      } catch (error) {
        if (!(error instanceof SandboxError) || ['CRASHED', 'CANCELLED', 'POOL_CLOSED'].includes(error.code)) throw error;
        const at = (error.details ?? {}) as { line?: number; column?: number };
        const problems = Array.isArray(error.details)
          ? (error.details as object[])
          : [{ path: 'source', message: error.message, ...(at.line ? { line: at.line, column: at.column } : {}) }];
        throw new StratboxError(
          'VALIDATION_FAILED',
          error.message,
          problems.map((p) => ({ ...p, code: error.code })),
        );
      }
    },

    stats() {
      return {
        children: slots.length,
        busy: slots.filter((s) => s.task).length,
        queued: queues.run.size + queues.inspect.size,
        pids: slots.map((s) => s.child.pid).filter((p): p is number => p !== undefined),
      };
    },

    async close() {
      closed = true;
      for (const task of [...queues.run.drain(), ...queues.inspect.drain()]) settle(task, new SandboxError('POOL_CLOSED', 'The sandbox pool was closed'));
      const exits = slots.map(
        (slot) =>
          new Promise<void>((resolve) => {
            if (slot.child.exitCode !== null || slot.child.signalCode !== null) return resolve();
            slot.child.once('exit', () => resolve());
            slot.child.ref();
            kill(slot, 'POOL_CLOSED');
          }),
      );
      await Promise.all(exits);
    },
  };
}

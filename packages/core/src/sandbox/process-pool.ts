import { fork, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createFairQueue, type FairQueue } from '../util/fair-queue.js';
import { SandboxError, type SandboxErrorCode } from './sandbox-error.js';
import type { ChildMessage, ParentMessage } from './worker-protocol.js';

/** One lane of a pool: children of its own, so a job of one lane never waits behind another lane's. */
export interface PoolLane {
  /** Most children of this lane. */
  size: number;
  /** Most jobs of one tenant running at once in this lane. Default: no cap. */
  maxRunningPerTenant?: number;
  /**
   * The error of a job whose child died under it without the pool killing it (default CRASHED
   * with the child's last stderr). A lane whose only input is untrusted source can say the source killed it.
   */
  lostJob?: (cpuMs: number) => SandboxError;
}

/** Options of `createProcessPool`. */
export interface ProcessPoolOptions<L extends string> {
  /** The child entry (it calls `runChildProgram`) and the Node flags to start it with. Asked for when a child starts. */
  worker: () => { path: string; execArgv: string[] };
  /** Arguments of every child (`process.argv.slice(2)` there). */
  args?: string[];
  /** The lanes, dispatched in this order whenever a child frees up. */
  lanes: Record<L, PoolLane>;
  /** Resident memory of a child, past which the host kills it (MEMORY_LIMIT). A child that peaked past half of it is replaced after its job. */
  rssLimitBytes: number;
  /** `--max-old-space-size` of a child, in MB. */
  maxOldSpaceSizeMb: number;
  /** Least time between two progress reports of a job. */
  progressIntervalMs: number;
  /** After a cancel, how long the child has to stop before it is killed. */
  cancelGraceMs: number;
  /** How often the host reads a busy child's resident memory. */
  rssPollMs: number;
  /**
   * How long a child over a lane's size (started ahead while background jobs held children) stays
   * after it last had a job, so that background jobs one after another reuse it instead of
   * starting a child each. Default 10 s.
   */
  surplusIdleMs?: number;
  /** The message of a CANCELLED error. Default "The job was cancelled". */
  cancelledMessage?: string;
}

/** One job for the pool. */
export interface PoolJob<L extends string> {
  lane: L;
  /** Whose job this is (a user id): tenants take turns for a lane's free children. */
  tenant?: string | undefined;
  /**
   * Work of the platform rather than of a user (a verified listing's record): it takes a child
   * only when no user's job of the lane may start, and only while users run fewer jobs than the
   * lane's size; a user's job that then finds no free child gets a child over the size instead of
   * waiting for the background job (one such child is kept started ahead). Default false.
   */
  background?: boolean | undefined;
  /** Sent to the child program as it is (structured clone). */
  payload: unknown;
  /** Wall-clock time from the job's start, after which the host kills the child (TIMEOUT). */
  wallTimeMs: number;
  /** Aborting stops the job: a queued one at once, a running one within `cancelGraceMs` at most. */
  signal?: AbortSignal | undefined;
  onProgress?: ((done: number, total: number) => void) | undefined;
}

/** What a job's child answered. */
export interface PoolJobResult {
  /** The child program's output, as it sent it. */
  output: unknown;
  /** Wall-clock milliseconds from the job's start to its answer. */
  wallMs: number;
  /** Highest resident memory of the child seen so far, in bytes. */
  peakRssBytes: number;
}

/**
 * A pool of long-lived child processes that run opaque jobs one at a time each, for untrusted
 * code. Guarantees:
 * - a job resolves once with its child's answer, or rejects once with a `SandboxError` whose
 *   `code` says why: the child's own error, TIMEOUT (wall clock), MEMORY_LIMIT (resident memory),
 *   CANCELLED, CRASHED (the child died; see `PoolLane.lostJob`), POOL_CLOSED; `cpuMs` is the CPU
 *   time the job used, read from /proc just before a kill when the child could not say;
 * - a failed job never takes the pool down: a killed, crashed or recycled child is replaced;
 * - within a lane, tenants take turns, and a tenant never runs more than the lane's cap;
 * - background jobs (`PoolJob.background`) never cost users a child: they start only on a child
 *   that no user's job may take, while users run fewer jobs than the lane's size, and while they
 *   hold children a user's job that finds none free gets a child over the size (at most one per
 *   background job running; one is kept started ahead for the users' next job), which stops
 *   once idle. Users' jobs go first; a background job runs to its end once started, and starts
 *   whenever users leave a child idle;
 * - a child that keeps dying before it is ready fails the waiting jobs instead of respawning forever.
 */
export interface ProcessPool<L extends string> {
  run(job: PoolJob<L>): Promise<PoolJobResult>;
  /** Children currently alive (with their process ids) and jobs waiting, all lanes together. */
  stats(): { children: number; busy: number; queued: number; pids: number[] };
  /** Rejects queued and running jobs with POOL_CLOSED and stops every child. */
  close(): Promise<void>;
}

interface Task<L extends string> {
  id: number;
  job: PoolJob<L>;
  tenant: string;
  background: boolean;
  resolve(value: PoolJobResult): void;
  reject(error: Error): void;
  onAbort?: () => void;
  startedAt: number;
  /** The child's CPU time (ms, from /proc) when the task started, if it could be read. */
  cpuAtStart: number | null;
  slot?: Slot<L>;
  settled: boolean;
}

interface Slot<L extends string> {
  lane: L;
  child: ChildProcess;
  ready: boolean;
  task: Task<L> | null;
  killReason: SandboxErrorCode | null;
  recycle: boolean;
  wallTimer?: NodeJS.Timeout;
  rssTimer?: NodeJS.Timeout;
  cancelTimer?: NodeJS.Timeout;
  peakRss: number;
  stderr: string;
  /** The child's CPU time (ms) read just before it was killed. */
  cpuAtKill: number | null;
  /** When it last had no job: its start, or its last job's end (performance.now()). */
  idleSince: number;
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

/**
 * Creates a pool of child processes running a child program (child-program.ts). Children start
 * on demand and are reused. The host watches every busy child: past the job's wall-clock time or
 * the resident-memory cap it kills the child and starts a new one, so a guest that escapes its
 * own limits (a long native call, a huge allocation) still ends in a clear error.
 */
export function createProcessPool<L extends string>(options: ProcessPoolOptions<L>): ProcessPool<L> {
  const lanes = Object.keys(options.lanes) as L[];
  const cancelledMessage = options.cancelledMessage ?? 'The job was cancelled';
  const surplusIdleMs = options.surplusIdleMs ?? 10_000;
  const killMessages: Partial<Record<SandboxErrorCode, (wallTimeMs: number) => string>> = {
    TIMEOUT: (wallTimeMs) => `The strategy ran past the ${wallTimeMs} ms wall-clock limit and its process was stopped`,
    MEMORY_LIMIT: () => `The strategy's process went past the ${options.rssLimitBytes} bytes memory limit and was stopped`,
    CANCELLED: () => cancelledMessage,
    POOL_CLOSED: () => 'The sandbox pool was closed',
  };
  const slots: Slot<L>[] = [];
  /** Per lane, users' jobs and background jobs wait in lines of their own. */
  const queues = Object.fromEntries(lanes.map((lane) => [lane, { users: createFairQueue<Task<L>>(), background: createFairQueue<Task<L>>() }])) as Record<
    L,
    { users: FairQueue<Task<L>>; background: FairQueue<Task<L>> }
  >;
  const lineOf = (task: Task<L>) => (task.background ? queues[task.job.lane].background : queues[task.job.lane].users);
  const queuedIn = (lane: L) => queues[lane].users.size + queues[lane].background.size;
  let nextId = 1;
  let closed = false;
  let startFailures = 0;

  const drainAll = () => lanes.flatMap((lane) => [...queues[lane].users.drain(), ...queues[lane].background.drain()]);

  function settle(task: Task<L>, error: Error | null, value?: PoolJobResult) {
    if (task.settled) return;
    task.settled = true;
    if (task.job.signal && task.onAbort) task.job.signal.removeEventListener('abort', task.onAbort);
    if (error) task.reject(error);
    else task.resolve(value!);
  }

  function clearTimers(slot: Slot<L>) {
    clearTimeout(slot.wallTimer);
    clearInterval(slot.rssTimer);
    clearTimeout(slot.cancelTimer);
    slot.wallTimer = slot.rssTimer = slot.cancelTimer = undefined;
  }

  function kill(slot: Slot<L>, reason: SandboxErrorCode) {
    if (!slot.killReason) slot.killReason = reason;
    slot.cpuAtKill ??= readCpuMs(slot.child.pid);
    slot.child.kill('SIGKILL');
  }

  /** CPU time a task used in a child that was killed or died: from /proc, else its wall time. */
  function cpuOfLostTask(slot: Slot<L>, task: Task<L>): number {
    if (slot.cpuAtKill !== null && task.cpuAtStart !== null) return Math.max(0, slot.cpuAtKill - task.cpuAtStart);
    return performance.now() - task.startedAt;
  }

  /** CPU time of a task the child answered: its own count, or /proc's when it had none. */
  function cpuOfAnsweredTask(slot: Slot<L>, task: Task<L>, reported: number): number {
    if (reported > 0 || task.cpuAtStart === null) return reported;
    const now = readCpuMs(slot.child.pid);
    return now === null ? reported : Math.max(0, now - task.cpuAtStart);
  }

  function idle(slot: Slot<L>) {
    clearTimers(slot);
    slot.task = null;
    slot.idleSince = performance.now();
    if (slot.recycle) {
      kill(slot, 'CRASHED');
      return;
    }
    slot.child.unref();
    (slot.child.channel as { unref?: () => void } | undefined)?.unref?.();
    dispatch();
  }

  function onMessage(slot: Slot<L>, message: ChildMessage) {
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
        task.job.onProgress?.(message.done, message.total);
      } catch {
        // A throwing progress listener must not break the job.
      }
      return;
    }
    if (message.recycle) slot.recycle = true;
    if (message.type === 'error') {
      const cpuMs = cpuOfAnsweredTask(slot, task, message.cpuMs);
      settle(task, new SandboxError(message.code, message.message, { details: message.details ?? undefined, logs: message.logs, cpuMs }));
    } else {
      slot.peakRss = Math.max(slot.peakRss, message.peakRssBytes);
      if (message.peakRssBytes > options.rssLimitBytes / 2) slot.recycle = true;
      settle(task, null, { output: message.output, wallMs: performance.now() - task.startedAt, peakRssBytes: slot.peakRss });
    }
    idle(slot);
  }

  function spawn(lane: L): Slot<L> {
    const w = options.worker();
    const child = fork(w.path, options.args ?? [], {
      // --no-liftoff: compile QuickJS's WASM with the optimizing tier at once, instead of running
      // the baseline tier until V8 tiers up (3x slower for the first second of every child).
      // --stack-size: room for QuickJS's own stack limit to trip before V8's native one does.
      execArgv: [...w.execArgv, `--max-old-space-size=${options.maxOldSpaceSizeMb}`, '--stack-size=3800', '--no-liftoff'],
      serialization: 'advanced',
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      env: { ...process.env, NODE_OPTIONS: '' },
    });
    const slot: Slot<L> = {
      lane,
      child,
      ready: false,
      task: null,
      killReason: null,
      recycle: false,
      peakRss: 0,
      stderr: '',
      cpuAtKill: null,
      idleSince: performance.now(),
    };
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
          for (const task of drainAll()) settle(task, new SandboxError('CRASHED', `The sandbox process could not start: ${why}`));
        }
      }
      const index = slots.indexOf(slot);
      if (index >= 0) slots.splice(index, 1);
      const task = slot.task;
      slot.task = null;
      if (task) {
        const reason = slot.killReason;
        const make = reason ? killMessages[reason] : undefined;
        const cpuMs = cpuOfLostTask(slot, task);
        const lostJob = options.lanes[task.job.lane].lostJob;
        if (reason && make) settle(task, new SandboxError(reason, make(task.job.wallTimeMs), { cpuMs }));
        else if (lostJob) settle(task, lostJob(cpuMs));
        else {
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

  function start(slot: Slot<L>, task: Task<L>) {
    slot.task = task;
    task.slot = slot;
    task.startedAt = performance.now();
    task.cpuAtStart = readCpuMs(slot.child.pid);
    slot.child.ref();
    (slot.child.channel as { ref?: () => void } | undefined)?.ref?.();
    slot.wallTimer = setTimeout(() => kill(slot, 'TIMEOUT'), task.job.wallTimeMs);
    const pid = slot.child.pid;
    if (pid !== undefined && process.platform === 'linux') {
      slot.rssTimer = setInterval(() => {
        void readRss(pid).then((rss) => {
          if (rss === null || slot.task !== task) return;
          slot.peakRss = Math.max(slot.peakRss, rss);
          if (rss > options.rssLimitBytes) kill(slot, 'MEMORY_LIMIT');
        });
      }, options.rssPollMs);
    }
    slot.child.send({ type: 'job', id: task.id, payload: task.job.payload, progressIntervalMs: options.progressIntervalMs } satisfies ParentMessage);
  }

  function runningOf(lane: L, tenant: string): number {
    let n = 0;
    for (const slot of slots) if (slot.lane === lane && slot.task?.tenant === tenant) n++;
    return n;
  }

  function dispatchLane(lane: L) {
    const { users, background } = queues[lane];
    const { size, maxRunningPerTenant } = options.lanes[lane];
    const canTake = maxRunningPerTenant === undefined ? undefined : (tenant: string) => runningOf(lane, tenant) < maxRunningPerTenant;
    while (!closed) {
      const laneSlots = slots.filter((s) => s.lane === lane);
      let userRunning = 0;
      let backgroundRunning = 0;
      for (const s of laneSlots) {
        if (s.task?.background) backgroundRunning++;
        else if (s.task) userRunning++;
      }
      // a user's job first; a background job only on what users cannot use now, within the size
      const line = userRunning < size && users.peek(canTake) ? users : userRunning + backgroundRunning < size && background.peek(canTake) ? background : null;
      if (!line) break; // nothing waits, or every waiting tenant is at its cap
      const free = laneSlots.find((s) => s.ready && !s.task && !s.killReason);
      if (free) {
        start(free, line.take(canTake)!);
        continue;
      }
      // for a user's job, children held by background jobs do not count against the size
      const starting = laneSlots.filter((s) => !s.ready && !s.killReason).length;
      if (laneSlots.length < (line === users ? size + backgroundRunning : size) && starting < queuedIn(lane)) {
        spawn(lane);
        continue;
      }
      break;
    }
    keepSpare(lane, size);
    retireSurplus(lane, size);
  }

  /**
   * While background jobs hold children and every other child is busy, starts one child for the
   * users' next job (within `size` + background jobs running), so that it finds a child ready
   * instead of waiting for one to start. Not after a failed start.
   */
  function keepSpare(lane: L, size: number) {
    if (closed || startFailures > 0) return;
    const laneSlots = slots.filter((s) => s.lane === lane);
    const live = laneSlots.filter((s) => !s.killReason);
    const backgroundRunning = laneSlots.filter((s) => s.task?.background).length;
    const userRunning = laneSlots.filter((s) => s.task && !s.task.background).length;
    if (backgroundRunning === 0 || userRunning >= size || live.some((s) => !s.task)) return;
    if (laneSlots.length < size + backgroundRunning) spawn(lane);
  }

  /**
   * Stops children over the size that no background job accounts for any more (children started
   * for users while background jobs held others), once one has had no job for `surplusIdleMs`
   * (the longest idle first); until then the next background job reuses it. Checks again when the
   * next one would be due.
   */
  function retireSurplus(lane: L, size: number) {
    const live = slots.filter((s) => s.lane === lane && !s.killReason);
    const backgroundRunning = live.filter((s) => s.task?.background).length;
    let surplus = live.length - (size + backgroundRunning);
    if (surplus <= 0) return;
    const now = performance.now();
    const idleOnes = live.filter((s) => !s.task).sort((a, b) => a.idleSince - b.idleSince);
    for (const s of idleOnes) {
      if (surplus <= 0) return;
      const dueIn = s.idleSince + surplusIdleMs - now;
      if (dueIn > 0) {
        retireLater(dueIn);
        return;
      }
      kill(s, 'CRASHED'); // no job: its exit only removes it
      surplus--;
    }
  }

  let retireTimer: NodeJS.Timeout | null = null;
  /** Dispatches again in `ms` (one timer for the pool, never holding the process open). */
  function retireLater(ms: number) {
    if (retireTimer !== null || closed) return;
    retireTimer = setTimeout(() => {
      retireTimer = null;
      dispatch();
    }, ms + 1);
    retireTimer.unref();
  }

  function dispatch() {
    for (const lane of lanes) dispatchLane(lane);
  }

  return {
    run(job) {
      return new Promise<PoolJobResult>((resolve, reject) => {
        if (closed) return reject(new SandboxError('POOL_CLOSED', 'The sandbox pool was closed'));
        if (job.signal?.aborted) return reject(new SandboxError('CANCELLED', cancelledMessage));
        const task: Task<L> = {
          id: nextId++,
          job,
          tenant: job.tenant ?? '',
          background: job.background === true,
          resolve,
          reject,
          startedAt: 0,
          cpuAtStart: null,
          settled: false,
        };
        const { signal } = job;
        if (signal) {
          task.onAbort = () => {
            if (lineOf(task).remove(task)) {
              settle(task, new SandboxError('CANCELLED', cancelledMessage));
              return;
            }
            const slot = task.slot;
            if (!slot || slot.task !== task) return;
            slot.child.send({ type: 'cancel', id: task.id } satisfies ParentMessage);
            slot.cancelTimer = setTimeout(() => {
              if (slot.task === task) kill(slot, 'CANCELLED');
            }, options.cancelGraceMs);
          };
          signal.addEventListener('abort', task.onAbort, { once: true });
        }
        lineOf(task).push(task.tenant, task);
        dispatch();
      });
    },

    stats() {
      return {
        children: slots.length,
        busy: slots.filter((s) => s.task).length,
        queued: lanes.reduce((n, lane) => n + queuedIn(lane), 0),
        pids: slots.map((s) => s.child.pid).filter((p): p is number => p !== undefined),
      };
    },

    async close() {
      closed = true;
      if (retireTimer !== null) clearTimeout(retireTimer);
      for (const task of drainAll()) settle(task, new SandboxError('POOL_CLOSED', 'The sandbox pool was closed'));
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

/**
 * The child side of a process pool (process-pool.ts): runs a `ChildProgram` in a forked child,
 * one job at a time, and speaks the pool's protocol (worker-protocol.ts) for it. A child entry
 * file is one call: `runChildProgram(program)`.
 */
import { SandboxError } from './sandbox-error.js';
import type { ChildMessage, ParentMessage } from './worker-protocol.js';

/** What a job sees of its child. */
export interface ChildJobContext {
  /**
   * True once the pool cancelled the job, or once the pool's process died (the child was
   * re-parented). Cheap enough to poll from an interrupt handler.
   */
  isCancelled(): boolean;
  /** Reports progress; reports closer together than the pool asked for are dropped, except the final one (done >= total). */
  progress(done: number, total: number): void;
}

/** The program of a pool's children. */
export interface ChildProgram {
  /**
   * Runs before the child reports ready, e.g. to compile WASM and warm V8 up so the first job
   * does not pay for it. A failure is ignored (it shows up again, as a clear error, in a job).
   */
  warmUp?(): Promise<void>;
  /**
   * Runs one job; resolves with its output (sent with the structured clone algorithm). Rejects
   * with a `SandboxError`; anything else is reported as CRASHED. After a CRASHED,
   * MEMORY_LIMIT or STACK_OVERFLOW error, or anything not a `SandboxError`, the pool replaces the child.
   */
  run(payload: unknown, context: ChildJobContext): Promise<unknown>;
}

const RECYCLE_CODES = new Set(['STACK_OVERFLOW', 'MEMORY_LIMIT', 'CRASHED']);

/** Starts serving the pool that forked this process. Call once, from the child's entry file. */
export function runChildProgram(program: ChildProgram): void {
  const cancelled = new Set<number>();
  let current: number | null = null;

  /*
   * A job may run synchronously for long stretches (inside QuickJS between batches), so the
   * 'disconnect' event of a dead parent waits until it yields. `isCancelled` is polled by the
   * guest's interrupt handler every few thousand operations; it also notices, within 100 ms,
   * that the child was re-parented (its parent died, even by SIGKILL), so an orphan never burns
   * CPU until its job's deadline.
   */
  const parentPid = process.ppid;
  let orphaned = false;
  let nextParentCheck = 0;
  const parentGone = (): boolean => {
    if (orphaned) return true;
    const now = performance.now();
    if (now < nextParentCheck) return false;
    nextParentCheck = now + 100;
    orphaned = process.ppid !== parentPid;
    return orphaned;
  };

  const send = (message: ChildMessage): void => {
    process.send?.(message);
  };

  const fail = (id: number, error: unknown): void => {
    const e =
      error instanceof SandboxError ? error : new SandboxError('CRASHED', `The sandbox failed: ${error instanceof Error ? error.message : String(error)}`);
    const recycle = !(error instanceof SandboxError) || RECYCLE_CODES.has(e.code);
    send({ type: 'error', id, code: e.code, message: e.message, details: e.details ?? null, logs: e.logs, cpuMs: e.cpuMs, recycle });
  };

  async function handle(message: ParentMessage): Promise<void> {
    if (message.type === 'cancel') {
      if (message.id === current) cancelled.add(message.id);
      return;
    }
    const { id, progressIntervalMs } = message;
    current = id;
    let lastProgress = 0;
    const context: ChildJobContext = {
      isCancelled: () => cancelled.has(id) || parentGone(),
      progress(done, total) {
        const now = performance.now();
        if (done < total && now - lastProgress < progressIntervalMs) return;
        lastProgress = now;
        send({ type: 'progress', id, done, total });
      },
    };
    try {
      const output = await program.run(message.payload, context);
      send({ type: 'result', id, output, peakRssBytes: process.resourceUsage().maxRSS * 1024, recycle: false });
    } catch (error) {
      fail(id, error);
    } finally {
      current = null;
      cancelled.delete(id);
      if (orphaned) process.exit(0);
    }
  }

  process.on('message', (message: ParentMessage) => {
    void handle(message);
  });
  process.on('disconnect', () => process.exit(0));

  const warmUp = program.warmUp ? program.warmUp().catch(() => undefined) : Promise.resolve();
  void warmUp.then(() => send({ type: 'ready', pid: process.pid }));
}

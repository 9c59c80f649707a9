import type { GuestLogLine, SandboxErrorCode } from './sandbox-error.js';

/**
 * The protocol between a process pool (process-pool.ts) and its children (child-program.ts),
 * over Node's IPC channel with `serialization: 'advanced'` (typed arrays travel as they are).
 * Payloads and outputs are opaque here: the program the children run gives them meaning.
 */

/** Messages from the pool to a child. A child runs one job at a time. */
export type ParentMessage =
  | {
      type: 'job';
      id: number;
      payload: unknown;
      /** Least time between two progress reports of the job (a final report always comes). */
      progressIntervalMs: number;
    }
  | { type: 'cancel'; id: number };

/** Messages from a child to the pool. `recycle` asks the pool to replace the child after this job. */
export type ChildMessage =
  | { type: 'ready'; pid: number }
  | { type: 'progress'; id: number; done: number; total: number }
  | { type: 'result'; id: number; output: unknown; peakRssBytes: number; recycle: boolean }
  | { type: 'error'; id: number; code: SandboxErrorCode; message: string; details: unknown; logs: GuestLogLine[]; cpuMs: number; recycle: boolean };

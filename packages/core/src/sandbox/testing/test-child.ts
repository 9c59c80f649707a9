/**
 * Test fixture: the entry of a process-pool child running a tiny program, for tests of the
 * generic pool (process-pool.test.ts). Its jobs: echo a value, report progress, spin until
 * cancelled, hang where no cancel reaches, fail with a code, or exit.
 */
import { runChildProgram } from '../child-program.js';
import { SandboxError, type SandboxErrorCode } from '../sandbox-error.js';

export type TestChildJob =
  | { kind: 'echo'; value: unknown }
  | { kind: 'progress'; steps: number }
  | { kind: 'spin' }
  | { kind: 'hang' }
  | { kind: 'fail'; code: SandboxErrorCode; message: string }
  | { kind: 'exit'; code: number };

runChildProgram({
  async run(payload, context) {
    const job = payload as TestChildJob;
    switch (job.kind) {
      case 'echo':
        return { value: job.value, pid: process.pid };
      case 'progress':
        for (let i = 1; i <= job.steps; i++) {
          context.progress(i, job.steps);
          await new Promise<void>((resolve) => setImmediate(resolve));
        }
        return 'done';
      case 'spin':
        // yields between checks, as a job must for the cancel message to arrive
        for (;;) {
          if (context.isCancelled()) throw new SandboxError('CANCELLED', 'The spin was cancelled', { cpuMs: 1 });
          await new Promise<void>((resolve) => setImmediate(resolve));
        }
      case 'hang':
        for (;;) {
          // never yields, never polls: only a kill ends it
        }
      case 'fail':
        throw new SandboxError(job.code, job.message);
      case 'exit':
        process.exit(job.code);
    }
  },
});

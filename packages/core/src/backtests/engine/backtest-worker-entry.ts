/**
 * Entry of a backtest sandbox child process, forked by `createSandboxPool`; built as
 * `dist/sandbox/worker-entry.js|.cjs` and published as `@stratbox/core/sandbox/worker-entry`.
 * Never imported by the host.
 */
import { runChildProgram } from '../../sandbox/child-program.js';
import { backtestChildProgram } from './backtest-child-program.js';

runChildProgram(backtestChildProgram);

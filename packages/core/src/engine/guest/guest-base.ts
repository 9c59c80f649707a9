import { createRandom, installDeterminism } from './determinism.js';
import { createErrorRecorder, type ErrorRecorder } from './errors.js';
import { jsonParse } from './intrinsics.js';
import { createLogBuffer, installConsole, type LogBuffer } from './log-buffer.js';

/** What the host sends when it creates a runtime. */
export interface GuestBoot {
  seed: number;
  /** What `Date.now()` answers until the run sets the time. */
  startTime: number;
  maxLogLines: number;
  maxLogBytes: number;
}

/** What every guest runtime installs first: the seeded random, the clock, the console and error description. */
export interface GuestBase {
  boot: GuestBoot;
  random: () => number;
  logs: LogBuffer;
  errors: ErrorRecorder;
  /** From now on the clock reads `source` (the run's candle time). */
  setTimeSource(source: () => number): void;
  /** The api functions the host's session uses to describe an error: `lastError()`, and `describe(thrown)` which records and answers it. */
  errorApi: { lastError(): string; describe(e: unknown): string };
  /** `fn`, answering `failed` instead of throwing: what it threw is recorded for `lastError()`. */
  guarded<A extends unknown[], R>(fn: (...args: A) => R, failed: R): (...args: A) => R;
}

/**
 * Installs what a strategy sees of the world in both runtimes (docs/strategy-api.md, "The
 * sandbox"): `Math.random` and `Date` seeded and clocked by the run, `console` into the log
 * buffer (`logScope` names what its limit applies to, for the error message).
 */
export function createGuestBase(bootJson: string, logScope: string): GuestBase {
  const boot = jsonParse(bootJson) as GuestBoot;
  let timeSource = () => boot.startTime;
  const clock = () => timeSource();
  const random = createRandom(boot.seed);
  installDeterminism(random, clock);
  const logs = createLogBuffer({ maxLines: boot.maxLogLines, maxBytes: boot.maxLogBytes, scope: logScope, now: clock });
  installConsole(logs);
  const errors = createErrorRecorder(logs);
  return {
    boot,
    random,
    logs,
    errors,
    errorApi: {
      lastError: errors.lastError,
      describe(e) {
        errors.describe(e);
        return errors.lastError();
      },
    },
    setTimeSource(source) {
      timeSource = source;
    },
    guarded:
      (fn, failed) =>
      (...args) => {
        try {
          return fn(...args);
        } catch (e) {
          errors.describe(e);
          return failed;
        }
      },
  };
}

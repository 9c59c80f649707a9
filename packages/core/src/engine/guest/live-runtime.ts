/*
 * The trusted runtime of a live deployment, evaluated inside its QuickJS context before the
 * strategy (bundled at build time: engine/guest-script.ts): the seeded clock and random, the
 * per-call log limit, error description, and the live run (live-run.ts) that builds `ctx`.
 */
import { createRandom, installDeterminism } from './determinism.js';
import { createErrorRecorder, readMeta } from './errors.js';
import { freeze, jsonParse } from './intrinsics.js';
import { type HostInd, type LiveRun, type LiveRunConfig, createLiveRun, type StrategyModule } from './live-run.js';
import { createLogBuffer, installConsole } from './log-buffer.js';

export function createRuntime(bootJson: string) {
  const boot = jsonParse(bootJson) as { seed: number; startTime: number; maxLogLines: number; maxLogBytes: number };
  let timeSource = () => boot.startTime;
  const clock = () => timeSource();
  const random = createRandom(boot.seed);
  installDeterminism(random, clock);
  // Log limits are per call: a live deployment runs for ever.
  const logs = createLogBuffer({ maxLines: boot.maxLogLines, maxBytes: boot.maxLogBytes, scope: ' in one call', now: clock });
  installConsole(logs);
  const errors = createErrorRecorder(logs);
  let live: LiveRun | null = null;
  /* A call that throws answers null; the host then reads lastError(). */
  const guarded =
    <A extends unknown[]>(fn: (...args: A) => string) =>
    (...args: A): string | null => {
      try {
        return fn(...args);
      } catch (e) {
        errors.describe(e);
        return null;
      }
    };

  function start(ns: StrategyModule, hostInd: HostInd, cfgJson: string): boolean {
    live = createLiveRun(jsonParse(cfgJson) as LiveRunConfig, ns, hostInd, { logs, random, startTime: boot.startTime });
    timeSource = live.now;
    return true;
  }

  return freeze({
    readMeta,
    start,
    candle: guarded((stateJson: string, candleJson: string, call: boolean) => live!.candle(stateJson, candleJson, call)),
    order: guarded((stateJson: string, eventJson: string) => live!.order(stateJson, eventJson)),
    lastError: errors.lastError,
    describe: (e: unknown) => {
      errors.describe(e);
      return errors.lastError();
    },
  });
}

/*
 * The trusted runtime of a live deployment, evaluated inside its QuickJS context before the
 * strategy (bundled at build time: engine/guest-script.ts): the seeded clock and random, the
 * per-call log limit, error description, and the live run (live-run.ts) that builds `ctx`.
 */
import { readMeta } from './errors.js';
import { createGuestBase } from './guest-base.js';
import { freeze, jsonParse } from './intrinsics.js';
import type { HostHistory } from './candle-history.js';
import { type HostInd, type LiveRun, type LiveRunConfig, createLiveRun, type StrategyModule } from './live-run.js';

export function createRuntime(bootJson: string) {
  // Log limits are per call: a live deployment runs for ever.
  const { boot, random, logs, errorApi, setTimeSource, guarded } = createGuestBase(bootJson, ' in one call');
  let live: LiveRun | null = null;
  /* A call that throws answers null; the host then reads lastError(). */
  const call = <A extends unknown[]>(fn: (...args: A) => string) => guarded<A, string | null>(fn, null);

  function start(ns: StrategyModule, hostInd: HostInd, hostHistory: HostHistory, cfgJson: string): boolean {
    live = createLiveRun(jsonParse(cfgJson) as LiveRunConfig, ns, { ind: hostInd, history: hostHistory }, { logs, random, startTime: boot.startTime });
    setTimeSource(live.now);
    return true;
  }

  return freeze({
    readMeta,
    start,
    candle: call((stateJson: string, candleJson: string, callStrategy: boolean) => live!.candle(stateJson, candleJson, callStrategy)),
    order: call((stateJson: string, eventJson: string) => live!.order(stateJson, eventJson)),
    ...errorApi,
  });
}

import { expect } from 'vitest';
import { createRandom } from '../engine/guest/determinism.js';

/** Standard normal draws from the sandbox's seeded sfc32 (Box-Muller): the same seed, the same draws. */
export function normals(seed: number): () => number {
  const random = createRandom(seed);
  return () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
}

/** Matches a thrown StratboxError with code VALIDATION_FAILED and a message matching `message`: `expect(run).toThrow(validationError(/even/))`. */
export function validationError(message: RegExp): ReturnType<typeof expect.objectContaining> {
  return expect.objectContaining({ name: 'StratboxError', code: 'VALIDATION_FAILED', message: expect.stringMatching(message) });
}

/** Counts turns of the event loop (a setImmediate callback re-armed each turn) until `stop()`. */
export function eventLoopTicks(): { readonly count: number; stop(): number } {
  let count = 0;
  let running = true;
  const tick = () => {
    if (!running) return;
    count++;
    setImmediate(tick);
  };
  setImmediate(tick);
  return {
    get count() {
      return count;
    },
    stop() {
      running = false;
      return count;
    },
  };
}

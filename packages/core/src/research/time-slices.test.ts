import { describe, expect, it } from 'vitest';
import { eventLoopTicks } from './test-fixtures.js';
import { runSteps, runStepsInSlices, type Steps } from './time-slices.js';

/** `count` steps recording, at each, how many turns of the event loop `ticks` has seen; answers the sum 0 + 1 + ... */
function* counting(count: number, seen: number[], ticks: () => number): Steps<number> {
  let sum = 0;
  for (let i = 0; i < count; i++) {
    seen.push(ticks());
    sum += i;
    yield;
  }
  return sum;
}

describe('runSteps / runStepsInSlices', () => {
  it('runs every step at once, or one slice per turn of the event loop, to the same answer', async () => {
    const ticks = eventLoopTicks();
    const atOnce: number[] = [];
    expect(runSteps(counting(20, atOnce, () => ticks.count))).toBe(190);
    expect(new Set(atOnce).size).toBe(1);
    const sliced: number[] = [];
    // sliceMs 0: a slice is one step, and each slice waits for a turn of the event loop.
    expect(
      await runStepsInSlices(
        counting(20, sliced, () => ticks.count),
        { sliceMs: 0 },
      ),
    ).toBe(190);
    ticks.stop();
    sliced.slice(1).forEach((count, i) => expect(count).toBeGreaterThan(sliced[i]!));
  });

  it('stops at the next slice once the signal is aborted, rejecting with its reason; a step’s error rejects', async () => {
    const controller = new AbortController();
    const seen: number[] = [];
    const running = runStepsInSlices(
      counting(1_000_000, seen, () => 0),
      { signal: controller.signal, sliceMs: 0 },
    );
    setImmediate(() => controller.abort(new Error('stop')));
    await expect(running).rejects.toThrow('stop');
    expect(seen.length).toBeLessThan(1_000_000);
    function* failing(): Steps<number> {
      yield;
      throw new Error('step failed');
    }
    await expect(runStepsInSlices(failing())).rejects.toThrow('step failed');
    expect(() => runSteps(failing())).toThrow('step failed');
  });
});

import type { Clock } from '@stratbox/core';

/** A clock that runs `factor` times faster than real time from now on, never going back. */
export function acceleratedClock(factor: number): Clock {
  const realStart = Date.now();
  let last = 0;
  return {
    now() {
      last = Math.max(last, realStart + (Date.now() - realStart) * factor);
      return new Date(last);
    },
  };
}

/** Where services read the time. Guarantees: `now()` never goes backwards within a process. */
export interface Clock {
  now(): Date;
}

export function createSystemClock(): Clock {
  let last = 0;
  return {
    now() {
      last = Math.max(last, Date.now());
      return new Date(last);
    },
  };
}

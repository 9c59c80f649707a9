/*
 * Backoff for exchange calls: exponential with jitter, bounded, plus a cool-down shared by every
 * gateway of one exchange client, so that after a rate-limit answer all deployments on that
 * API key pause together instead of each hammering on (which is how keys get banned).
 */

export interface RetryOptions {
  /** Tries of one call, the first included. Default 5. */
  maxAttempts?: number;
  /** Pause before the first retry. Default 250 ms. */
  baseDelayMs?: number;
  /** Longest pause. Default 10 s. */
  maxDelayMs?: number;
  /** Default: setTimeout. */
  sleep?: (ms: number) => Promise<void>;
  /** Uniform in [0, 1). Default Math.random. */
  random?: () => number;
}

export interface RetryPolicy {
  readonly maxAttempts: number;
  /** Pause before try `attempt + 1` after `attempt` failed (attempt >= 1): base * 2^(attempt-1), capped, times a jitter in [0.5, 1). */
  delayMs(attempt: number): number;
  sleep(ms: number): Promise<void>;
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export function createRetryPolicy(options: RetryOptions = {}): RetryPolicy {
  const maxAttempts = Math.max(1, Math.floor(options.maxAttempts ?? 5));
  const base = Math.max(0, options.baseDelayMs ?? 250);
  const max = Math.max(base, options.maxDelayMs ?? 10_000);
  const random = options.random ?? Math.random;
  return {
    maxAttempts,
    delayMs(attempt) {
      const exponential = Math.min(max, base * 2 ** Math.max(0, attempt - 1));
      return Math.round(exponential * (0.5 + random() / 2));
    },
    sleep: options.sleep ?? defaultSleep,
  };
}

/**
 * A pause shared by the gateways of one exchange client: `extend(ms)` after a rate-limit
 * answer; every call first `wait()`s until the pause is over.
 */
export interface Cooldown {
  wait(): Promise<void>;
  extend(ms: number): void;
}

export function createCooldown(options: { now?: () => number; sleep?: (ms: number) => Promise<void> } = {}): Cooldown {
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? defaultSleep;
  let until = 0;
  return {
    async wait() {
      for (let left = until - now(); left > 0; left = until - now()) await sleep(left);
    },
    extend(ms) {
      until = Math.max(until, now() + ms);
    },
  };
}

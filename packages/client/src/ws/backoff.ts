/** How the client waits between reconnect attempts. */
export interface ReconnectOptions {
  /** Delay cap of the first retry (default 250 ms); each further attempt doubles it. */
  initialDelayMs?: number;
  /** Largest delay (default 30000 ms). */
  maxDelayMs?: number;
}

/**
 * The delay before reconnect attempt `attempt` (0 for the first): exponential, capped, with
 * "equal jitter": half the step is fixed and half is random, so that many clients dropped at
 * once (a server restart) do not all come back in the same millisecond.
 */
export function reconnectDelay(attempt: number, options: ReconnectOptions = {}, random: () => number = Math.random): number {
  const initial = options.initialDelayMs ?? 250;
  const max = options.maxDelayMs ?? 30_000;
  const step = Math.min(max, initial * 2 ** Math.min(attempt, 30));
  return Math.round(step / 2 + random() * (step / 2));
}

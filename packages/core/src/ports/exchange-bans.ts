/**
 * Where an exchange's "stop sending" answers are kept: 429 (rate limit) and 418 (ban) with their
 * `Retry-After`, per exchange account. Every gateway on the account (every deployment on the
 * credential, in every process that shares the implementation's storage) asks it before a
 * request, so no order request reaches the exchange while the account is banned.
 *
 * Guarantees an implementation must give:
 * - `banUntil` never shortens a ban: the account stays banned until the latest `untilMs` given.
 * - `bannedUntil` answers the end of the ban (epoch ms) while it runs, and null once it is over
 *   (or when there was none). A ban recorded by one node is seen by every node sharing the
 *   storage at their next `bannedUntil`.
 * - Account keys are opaque and independent; they never hold an API key or secret (Stratbox
 *   uses the exchange id and the credential id).
 * - Both reject only when the storage fails; callers then fall back to what this process saw.
 */
export interface ExchangeBans {
  /** Records that the exchange refuses `accountKey`'s requests until `untilMs` (epoch ms). */
  banUntil(accountKey: string, untilMs: number): Promise<void>;
  /** The end of `accountKey`'s running ban (epoch ms), or null if it is not banned now. */
  bannedUntil(accountKey: string): Promise<number | null>;
  /** Releases connections; no call is made after it. */
  close?(): Promise<void>;
}

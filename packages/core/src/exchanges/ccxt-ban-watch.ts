import type { Exchange } from 'ccxt';
import type { ExchangeBans } from '../ports/exchange-bans.js';
import { ExchangeGatewayError } from '../ports/exchange-gateway.js';

/*
 * Honouring 429 and 418 per exchange account. Every HTTP answer of a ccxt instance goes through
 * its `handleErrors(status, ..., headers, ...)` before ccxt turns it into an error, so a small
 * wrapper there sees each 429 / 418 with its `Retry-After`, request by request (the instance's
 * `last_response_headers` would be whichever request ended last). The ban is noted in this
 * process at once and recorded in the ExchangeBans port for the other processes; the gateway's
 * guard asks both before every request.
 */

/** Without `Retry-After`: a 429 keeps the account away this long, a 418 (a ban) this long. */
export const DEFAULT_RATE_LIMIT_MS = 1_000;
export const DEFAULT_BAN_MS = 60_000;

/** `Retry-After` in ms: seconds, or an HTTP date; null when absent or unreadable. */
export function retryAfterMs(headers: Record<string, unknown> | undefined, now: number): number | null {
  if (!headers) return null;
  const entry = Object.entries(headers).find(([name]) => name.toLowerCase() === 'retry-after');
  const value = entry ? String(entry[1]).trim() : '';
  if (!value) return null;
  if (/^\d+(\.\d+)?$/.test(value)) return Math.round(Number(value) * 1000);
  const date = Date.parse(value);
  return Number.isFinite(date) ? Math.max(0, date - now) : null;
}

type BanListener = (status: 429 | 418, untilMs: number) => void;
const LISTENERS = Symbol.for('stratbox.banListeners');

/** Calls `listener` with the end of the wait every 429 or 418 answer of `ex` asks for. Returns a function that stops it. */
export function watchCcxtBans(ex: Exchange, listener: BanListener, now: () => number = Date.now): () => void {
  const target = ex as unknown as { [LISTENERS]?: Set<BanListener>; handleErrors: (...args: unknown[]) => unknown };
  let listeners = target[LISTENERS];
  if (!listeners) {
    const all = new Set<BanListener>();
    listeners = all;
    target[LISTENERS] = all;
    const original = target.handleErrors.bind(ex);
    target.handleErrors = (...args: unknown[]) => {
      const status = args[0];
      if (status === 429 || status === 418) {
        const at = now();
        const wait = retryAfterMs(args[4] as Record<string, unknown> | undefined, at) ?? (status === 418 ? DEFAULT_BAN_MS : DEFAULT_RATE_LIMIT_MS);
        for (const l of all) l(status, at + wait);
      }
      return original(...args);
    };
  }
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export interface BanGuardOptions {
  exchangeId: string;
  bans: ExchangeBans;
  /** The account the bans are kept under (`<exchange>:<credential id>`); never a key or secret. */
  accountKey: string;
  /** A read waits out a ban this short (default 30 s); a longer one fails it at once. Orders never wait. */
  maxReadWaitMs?: number;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

export interface BanGuard {
  /** Records a ban this process was told of (here at once, in the port for the others). */
  note(status: 429 | 418, untilMs: number): void;
  /** The end of the running ban, or null. */
  bannedUntil(): Promise<number | null>;
  /** Before an order request (create, cancel): throws `unavailable` during a ban, sends nothing. */
  beforeOrder(what: string): Promise<void>;
  /** Before any other request: waits out a short ban, throws `unavailable` during a long one. */
  beforeRead(what: string): Promise<void>;
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export function createBanGuard(options: BanGuardOptions): BanGuard {
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? defaultSleep;
  const maxReadWaitMs = options.maxReadWaitMs ?? 30_000;
  let local = 0;
  let lastStatus: 429 | 418 = 429;

  async function bannedUntil(): Promise<number | null> {
    let shared: number | null = null;
    try {
      shared = await options.bans.bannedUntil(options.accountKey);
    } catch {
      // the shared storage is down: what this process saw still holds
    }
    const until = Math.max(local, shared ?? 0);
    return until > now() ? until : null;
  }

  const refusal = (what: string, until: number) =>
    new ExchangeGatewayError(
      options.exchangeId,
      'unavailable',
      `${options.exchangeId} asked this account to wait (HTTP ${local >= until ? lastStatus : '429/418'}) until ${new Date(until).toISOString()}; ${what} was not sent`,
      { retryAt: new Date(until).toISOString() },
    );

  return {
    note(status, untilMs) {
      lastStatus = status;
      local = Math.max(local, untilMs);
      options.bans.banUntil(options.accountKey, untilMs).catch(() => undefined);
    },
    bannedUntil,
    async beforeOrder(what) {
      const until = await bannedUntil();
      if (until !== null) throw refusal(what, until);
    },
    async beforeRead(what) {
      for (let until = await bannedUntil(); until !== null; until = await bannedUntil()) {
        if (until - now() > maxReadWaitMs) throw refusal(what, until);
        await sleep(until - now());
      }
    },
  };
}

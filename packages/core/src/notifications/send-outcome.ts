import type { SendOutcome } from '../ports/notification-sender.js';
import { maskSecrets } from '../util/mask-secrets.js';
import { type GuardedResponse, isGuardedHttpError } from './guarded-http.js';

/*
 * What the three senders share: turning an answer or a failure into a SendOutcome whose error is
 * short and masked, and reading Retry-After.
 */

/** Longest `SendOutcome.error`. */
export const MAX_ERROR_CHARS = 200;

/** Whether a path segment or query value may be a token (long, or with digits): ordinary words such as `api` or `webhooks` stay readable. */
function looksSecret(part: string): boolean {
  return part.length >= 16 || (part.length >= 6 && /\d/.test(part));
}

/**
 * The secrets of a target to mask in any text kept from a send: the given secrets, and for each
 * URL the URL itself, its path and the segments and query values that may be tokens.
 */
export function targetSecrets(secrets: ReadonlyArray<string | undefined>, urls: ReadonlyArray<string | undefined> = []): string[] {
  const out = secrets.filter((s): s is string => typeof s === 'string' && s.length > 0);
  for (const raw of urls) {
    if (!raw) continue;
    out.push(raw);
    try {
      const url = new URL(raw);
      out.push(url.pathname, `${url.pathname}${url.search}`, url.search);
      const parts = [...url.pathname.split('/'), ...[...url.searchParams.values()]];
      out.push(...parts.filter(looksSecret));
    } catch {
      // Not a URL: the whole text is masked above.
    }
  }
  return out;
}

/** Characters of a text looked at before masking: far past what is kept, so no secret kept can be cut in two, and the masking stays quick. */
const MASK_WINDOW = 600;
/** Secrets up to this long are looked for in every encoding (mask-secrets.ts); longer ones, URLs and paths (their parts are looked for) as they are. */
const LOOSE_MAX = 100;

/** `text` on one line, every secret masked, at most MAX_ERROR_CHARS long. */
export function cleanError(text: string, secrets: readonly string[]): string {
  let exact = text.replace(/\s+/g, ' ').trim().slice(0, MASK_WINDOW);
  // Whole URLs and paths are replaced as they are (longest first); the echoes of the shorter
  // secrets in other encodings are found by maskSecrets, which is slow on long secrets.
  const loose = (s: string) => s.length <= LOOSE_MAX && !/[/?]/.test(s);
  const whole = secrets.filter((s) => !loose(s)).sort((a, b) => b.length - a.length);
  for (const secret of whole) exact = exact.split(secret).join('***');
  const masked = maskSecrets(exact, secrets.filter(loose));
  return masked.length <= MAX_ERROR_CHARS ? masked : `${masked.slice(0, MAX_ERROR_CHARS - 1)}…`;
}

/** Milliseconds a `Retry-After` value asks for (delay in seconds or an HTTP date), or undefined. */
export function parseRetryAfter(value: string | undefined, now: Date): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
  const at = Date.parse(text);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - now.getTime());
}

/** Whether trying again can help after an answer with `status`. */
export function isRetryableStatus(status: number): boolean {
  if (status >= 500) return true;
  if (status === 408 || status === 425 || status === 429) return true;
  // A temporary redirect may go away; a permanent one, or any other 4xx, will not.
  if (status === 302 || status === 303 || status === 307) return true;
  return false;
}

/** The outcome of an answer that is not a success; `detail` says what the receiver said (masked here). */
export function failedAnswer(response: GuardedResponse, detail: string | null, secrets: readonly string[], retryAfterMs: number | undefined): SendOutcome {
  const status = response.status;
  const what = status >= 300 && status < 400 ? `Redirect ${status} not followed: point the channel at the final URL` : `HTTP ${status}`;
  const text = detail ? `${what}: ${detail}` : what;
  return {
    ok: false,
    statusCode: status,
    error: cleanError(text, secrets),
    retryable: isRetryableStatus(status),
    ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
  };
}

/** The outcome of a send that got no answer (refused target, DNS, connection, timeout) or failed unexpectedly. */
export function failedExchange(error: unknown, secrets: readonly string[]): SendOutcome {
  if (isGuardedHttpError(error)) {
    // A refused target is retried too: the name may resolve to a public address again.
    return { ok: false, statusCode: null, error: cleanError(`${error.code}: ${error.message}`, secrets), retryable: true };
  }
  return { ok: false, statusCode: null, error: 'INTERNAL: the notification could not be sent', retryable: true };
}

/** The success outcome. */
export function delivered(status: number): SendOutcome {
  return { ok: true, statusCode: status, error: null, retryable: false };
}

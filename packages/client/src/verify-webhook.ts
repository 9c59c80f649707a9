import { WEBHOOK_TOLERANCE_SECONDS, WebhookPayload } from '@stratbox/contract';

/*
 * Checks a Stratbox webhook delivery on the receiving side, in browsers, edge runtimes and Node
 * (Web Crypto only). The `Stratbox-Signature` header is `t=<unix seconds>,v1=<hex>` where the hex
 * is HMAC-SHA256(secret, t + "." + body) over the body's exact bytes; during a secret rotation
 * it carries one `v1=` per secret, and any one that matches is enough.
 */

export type WebhookVerificationErrorCode = 'SIGNATURE_MISSING' | 'SIGNATURE_INVALID' | 'SIGNATURE_EXPIRED' | 'PAYLOAD_INVALID';

/** Why a delivery was not accepted. Answer it with a 400 (or 401); never process the body. */
export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
  constructor(
    readonly code: WebhookVerificationErrorCode,
    message: string,
  ) {
    super(message);
  }
}

export function isWebhookVerificationError(error: unknown): error is WebhookVerificationError {
  return error instanceof WebhookVerificationError;
}

export interface VerifyWebhookOptions {
  /** How far the signature's time may be from `now`, either way, in seconds. Default `WEBHOOK_TOLERANCE_SECONDS` (300). */
  toleranceSeconds?: number;
  /** The time to check against. Default: the current time. */
  now?: Date;
}

const encoder = new TextEncoder();

function fail(code: WebhookVerificationErrorCode, message: string): never {
  throw new WebhookVerificationError(code, message);
}

/** The bytes of `hex` (64 hex digits), or null. */
function fromHex(hex: string): Uint8Array | null {
  if (!/^[0-9a-fA-F]{64}$/.test(hex)) return null;
  const bytes = new Uint8Array(32);
  for (let i = 0; i < 32; i++) bytes[i] = Number.parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return bytes;
}

/** Compares two byte strings in time that depends on their length only. */
function timingSafeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i]! ^ b[i]!;
  return diff === 0;
}

async function hmacSha256(secret: string, data: Uint8Array<ArrayBuffer>): Promise<Uint8Array> {
  const subtle = globalThis.crypto?.subtle;
  if (!subtle) throw new Error('verifyWebhook needs Web Crypto (globalThis.crypto.subtle): Node 20+, a browser on HTTPS, or an edge runtime');
  const key = await subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  return new Uint8Array(await subtle.sign('HMAC', key, data));
}

/**
 * Verifies a webhook delivery and returns its payload (an event or a digest).
 * - `body`: the raw request body exactly as received (a string or its bytes), not re-serialised JSON;
 * - `header`: the `Stratbox-Signature` header;
 * - `secret`: the channel's signing secret (`whsec_...`), or several while rotating.
 * Throws a `WebhookVerificationError`: `SIGNATURE_MISSING` (no header), `SIGNATURE_INVALID`
 * (malformed, or no `v1=` matches), `SIGNATURE_EXPIRED` (its time is more than
 * `toleranceSeconds` from now: a replay), `PAYLOAD_INVALID` (not a payload of the contract).
 * Deduplicate deliveries by the `Idempotency-Key` header (the payload's `id`): a delivery may come twice.
 */
export async function verifyWebhook(
  body: string | Uint8Array,
  header: string | null | undefined,
  secret: string | readonly string[],
  options: VerifyWebhookOptions = {},
): Promise<WebhookPayload> {
  if (header == null || header.trim() === '') fail('SIGNATURE_MISSING', 'No Stratbox-Signature header');
  let timestamp: string | undefined;
  const signatures: Uint8Array[] = [];
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === 't') timestamp = value;
    else if (key === 'v1') {
      const bytes = fromHex(value);
      if (bytes) signatures.push(bytes);
    }
  }
  if (timestamp === undefined || !/^\d{1,15}$/.test(timestamp)) fail('SIGNATURE_INVALID', 'The Stratbox-Signature header has no valid t= timestamp');
  if (signatures.length === 0) fail('SIGNATURE_INVALID', 'The Stratbox-Signature header has no valid v1= signature');

  const bodyBytes = typeof body === 'string' ? encoder.encode(body) : body;
  const prefix = encoder.encode(`${timestamp}.`);
  const signed = new Uint8Array(prefix.length + bodyBytes.length);
  signed.set(prefix, 0);
  signed.set(bodyBytes, prefix.length);

  const secrets = typeof secret === 'string' ? [secret] : [...secret];
  if (secrets.length === 0 || secrets.some((s) => typeof s !== 'string' || s === '')) throw new TypeError('verifyWebhook needs the signing secret');
  let matched = false;
  for (const s of secrets) {
    const expected = await hmacSha256(s, signed);
    // Every candidate is compared, so the time taken does not tell which one matched.
    for (const candidate of signatures) matched = timingSafeEqual(expected, candidate) || matched;
  }
  if (!matched) fail('SIGNATURE_INVALID', 'The signature does not match the body and the secret');

  const tolerance = options.toleranceSeconds ?? WEBHOOK_TOLERANCE_SECONDS;
  const nowSeconds = Math.floor((options.now ?? new Date()).getTime() / 1000);
  if (Math.abs(nowSeconds - Number(timestamp)) > tolerance) {
    fail('SIGNATURE_EXPIRED', `The signature's time is more than ${tolerance} s from now: refused as a possible replay`);
  }

  let json: unknown;
  try {
    json = JSON.parse(typeof body === 'string' ? body : new TextDecoder('utf-8', { fatal: true }).decode(body));
  } catch {
    fail('PAYLOAD_INVALID', 'The body is not JSON');
  }
  const parsed = WebhookPayload.safeParse(json);
  if (!parsed.success) fail('PAYLOAD_INVALID', 'The body is not a Stratbox notification payload');
  return parsed.data;
}

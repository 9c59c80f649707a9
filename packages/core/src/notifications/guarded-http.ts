import { lookup as dnsLookup } from 'node:dns/promises';
import { type IncomingMessage, request as httpRequest, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { StratboxError } from '../errors/index.js';
import { type AllowHosts, normaliseHost, parseAddress, parseAllowHosts } from './allow-hosts.js';
import { nonPublicRange } from './public-address.js';

/*
 * The one HTTP client for URLs a user gave (webhooks, Discord webhooks, the Telegram Bot API):
 * - `http:` and `https:` only; plain `http:` only to a host the operator admits;
 * - the host is resolved, and refused when any of its addresses is not public unicast
 *   (public-address.ts) unless the operator admits the host or that address (allow-hosts.ts);
 * - the connection goes to the checked address (the socket's lookup answers it), with the
 *   name kept for Host and TLS (SNI, certificate), so DNS that changes between the check and
 *   the connection cannot send the request elsewhere;
 * - redirects are never followed: a 3xx is returned as it is;
 * - one timeout covers the whole exchange (DNS, connect, send, answer);
 * - at most `maxResponseBytes` of the answer are read; only an excerpt is kept.
 * No error message holds a URL's path or query (where the secrets of a Discord webhook or a bot
 * token live): only the host is named.
 */

/** One address of a host, as `dns.lookup(host, { all: true })` gives it. */
export interface ResolvedAddress {
  address: string;
  family: number;
}

/** Resolves a host name to all its addresses (an injectable `dns.lookup(host, { all: true })`). */
export type HostResolver = (hostname: string) => Promise<ResolvedAddress[]>;

export interface GuardedHttpClientOptions {
  /** The operator's admitted hosts (`STRATBOX_NOTIFY_ALLOW_HOSTS`): a matcher, a list or the comma-separated setting. Default: none. */
  allowHosts?: AllowHosts | string | readonly string[];
  /** Limit on a whole exchange, DNS included, in ms. Default 10000. */
  timeoutMs?: number;
  /** Bytes of an answer read at most; the rest is not read (the connection is closed). Default 65536. */
  maxResponseBytes?: number;
  /** DNS resolver. Default `dns.promises.lookup(host, { all: true })`. */
  lookup?: HostResolver;
}

export interface GuardedPostOptions {
  headers?: Record<string, string>;
  body: string | Uint8Array;
  /** Aborts the exchange (rejects with code `ABORTED`). */
  signal?: AbortSignal;
}

/** An answer, whatever its status (a 3xx is not followed). */
export interface GuardedResponse {
  status: number;
  /** Header names lower-case; repeated headers joined with ", ". */
  headers: Record<string, string>;
  /** The start of the body as text (at most `EXCERPT_CHARS` characters), not masked: the caller masks what it keeps. */
  bodyExcerpt: string;
  /** True when the body was longer than `maxResponseBytes` and was cut there. */
  truncated: boolean;
}

/** Why a POST got no answer. */
export type GuardedHttpErrorCode = 'TARGET_REFUSED' | 'TIMEOUT' | 'CONNECTION' | 'ABORTED';

/** A POST that got no answer. The message names the host at most, never a path or query. */
export class GuardedHttpError extends Error {
  override readonly name = 'GuardedHttpError';
  constructor(
    readonly code: GuardedHttpErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export function isGuardedHttpError(error: unknown): error is GuardedHttpError {
  return error instanceof GuardedHttpError;
}

export interface GuardedHttpClient {
  /** Throws a StratboxError VALIDATION_FAILED (400) naming why when `url` may not be sent to now. For channel create and update. */
  checkUrl(url: string): Promise<void>;
  /** POSTs `body` to `url` after the same checks, on a connection pinned to the checked address. Rejects with a `GuardedHttpError` when no answer came. */
  post(url: string, options: GuardedPostOptions): Promise<GuardedResponse>;
}

/** Characters of a body kept in `bodyExcerpt`. */
export const EXCERPT_CHARS = 2000;

const ALLOW_HINT = 'an operator can admit internal hosts with STRATBOX_NOTIFY_ALLOW_HOSTS';

/** A target the rules refuse; `reason` is safe to show. */
class Refusal extends Error {}

interface Target {
  url: URL;
  /** The host name without brackets. */
  host: string;
  /** The checked addresses to connect to. */
  addresses: ResolvedAddress[];
}

const defaultLookup: HostResolver = async (hostname) => dnsLookup(hostname, { all: true });

function describeRange(range: string): string {
  switch (range) {
    case 'private':
      return 'a private address';
    case 'loopback':
      return 'a loopback address';
    case 'linkLocal':
      return 'a link-local address (such as the cloud metadata address 169.254.169.254)';
    case 'uniqueLocal':
      return 'a unique-local address';
    case 'carrierGradeNat':
      return 'a carrier-grade NAT address';
    case 'unspecified':
      return 'the unspecified address';
    case 'multicast':
    case 'broadcast':
      return `a ${range} address`;
    default:
      return 'a reserved (not public) address';
  }
}

/** Waits for `promise`, rejecting when `signal` aborts. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

function headersOf(res: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(res.headers)) {
    if (value === undefined) continue;
    headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}

/** Creates the guarded client (see the file comment). */
export function createGuardedHttpClient(options: GuardedHttpClientOptions = {}): GuardedHttpClient {
  const allow: AllowHosts =
    options.allowHosts === undefined || typeof options.allowHosts === 'string' || Array.isArray(options.allowHosts)
      ? parseAllowHosts(options.allowHosts as string | readonly string[] | undefined)
      : (options.allowHosts as AllowHosts);
  const timeoutMs = options.timeoutMs ?? 10_000;
  const maxResponseBytes = options.maxResponseBytes ?? 65_536;
  const resolve = options.lookup ?? defaultLookup;

  /** Parses and checks `raw`; resolves its host; throws a Refusal (safe message) or the resolver's error. */
  async function target(raw: string, signal: AbortSignal): Promise<Target> {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw new Refusal('The URL is not valid');
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Refusal(`The URL's scheme ${url.protocol} is not allowed: use https`);
    const host = normaliseHost(url.hostname);
    if (host === '') throw new Refusal('The URL has no host');
    const literal = parseAddress(host);
    let addresses: ResolvedAddress[];
    if (literal) {
      addresses = [{ address: literal.toString(), family: literal.kind() === 'ipv4' ? 4 : 6 }];
    } else {
      let found: ResolvedAddress[];
      try {
        found = await untilAborted(resolve(host), signal);
      } catch (error) {
        if (signal.aborted) throw error;
        const code = (error as { code?: unknown }).code;
        if (code === 'ENOTFOUND' || code === 'ENODATA') throw new Refusal(`The host ${host} was not found`);
        throw new GuardedHttpError('CONNECTION', `Could not resolve ${host}${typeof code === 'string' ? ` (${code})` : ''}`);
      }
      if (found.length === 0) throw new Refusal(`The host ${host} was not found`);
      addresses = found.map((a) => ({ address: a.address, family: a.family }));
    }
    for (const { address } of addresses) {
      const range = nonPublicRange(address);
      if (range !== null && !allow.admits(host, address)) {
        const where = literal ? `${host} is` : `${host} resolves to`;
        throw new Refusal(`Refused: ${where} ${describeRange(range)}; notifications go to public addresses only (${ALLOW_HINT})`);
      }
    }
    if (url.protocol === 'http:' && !addresses.every(({ address }) => allow.admits(host, address))) {
      throw new Refusal(`Refused: plain http is allowed only to hosts the operator admits (${ALLOW_HINT}); use https`);
    }
    return { url, host, addresses };
  }

  async function checkUrl(raw: string): Promise<void> {
    const signal = AbortSignal.timeout(timeoutMs);
    try {
      await target(raw, signal);
    } catch (error) {
      if (error instanceof Refusal) throw new StratboxError('VALIDATION_FAILED', error.message);
      if (error instanceof GuardedHttpError) throw new StratboxError('VALIDATION_FAILED', `${error.message}; try again later`);
      if (signal.aborted) throw new StratboxError('VALIDATION_FAILED', `Timed out checking the URL's host (${timeoutMs} ms)`);
      throw error;
    }
  }

  function exchange(t: Target, options: GuardedPostOptions, signal: AbortSignal): Promise<GuardedResponse> {
    const pinned: LookupFunction = (_hostname, lookupOptions, callback) => {
      // Node asks for all addresses when it races IPv4 and IPv6 (autoSelectFamily).
      const all = (lookupOptions as { all?: boolean }).all === true;
      if (all) (callback as unknown as (e: null, a: ResolvedAddress[]) => void)(null, t.addresses);
      else callback(null, t.addresses[0]!.address, t.addresses[0]!.family);
    };
    const body = typeof options.body === 'string' ? Buffer.from(options.body, 'utf8') : options.body;
    const requestOptions: RequestOptions = {
      method: 'POST',
      hostname: t.host,
      port: t.url.port === '' ? undefined : Number(t.url.port),
      path: `${t.url.pathname}${t.url.search}`,
      headers: { ...options.headers, 'content-length': String(body.byteLength) },
      lookup: pinned,
      agent: false,
      signal,
    };
    const send = t.url.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise<GuardedResponse>((resolvePromise, reject) => {
      const req = send(requestOptions, (res) => {
        const chunks: Buffer[] = [];
        let bytes = 0;
        let truncated = false;
        const finish = () => {
          const text = Buffer.concat(chunks).subarray(0, maxResponseBytes).toString('utf8');
          resolvePromise({ status: res.statusCode ?? 0, headers: headersOf(res), bodyExcerpt: text.slice(0, EXCERPT_CHARS), truncated });
        };
        res.on('data', (chunk: Buffer) => {
          if (truncated) return;
          chunks.push(chunk);
          bytes += chunk.byteLength;
          if (bytes > maxResponseBytes) {
            truncated = true;
            finish();
            req.destroy();
          }
        });
        res.on('end', () => {
          if (!truncated) finish();
        });
        res.on('error', (error) => {
          if (!truncated) reject(error);
        });
      });
      req.on('error', reject);
      req.end(body);
    });
  }

  async function post(raw: string, options: GuardedPostOptions): Promise<GuardedResponse> {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new GuardedHttpError('TIMEOUT', `No answer within ${timeoutMs} ms`)), timeoutMs);
    const onOuterAbort = () => controller.abort(new GuardedHttpError('ABORTED', 'Aborted'));
    if (options.signal?.aborted) onOuterAbort();
    options.signal?.addEventListener('abort', onOuterAbort, { once: true });
    const signal = controller.signal;
    let host = '';
    try {
      const t = await target(raw, signal);
      host = t.host;
      return await exchange(t, options, signal);
    } catch (error) {
      if (signal.aborted && signal.reason instanceof GuardedHttpError) throw signal.reason;
      if (error instanceof Refusal) throw new GuardedHttpError('TARGET_REFUSED', error.message);
      if (error instanceof GuardedHttpError) throw error;
      const code = (error as { code?: unknown }).code;
      const detail = typeof code === 'string' ? ` (${code})` : '';
      throw new GuardedHttpError('CONNECTION', `Connection to ${host || 'the host'} failed${detail}`);
    } finally {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onOuterAbort);
    }
  }

  return { checkUrl, post };
}

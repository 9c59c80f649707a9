/*
 * Account-level behaviour and faults of the local Binance USDT-M double (`fake-binance-usdm.ts`),
 * kept apart from its order book: the settings a pre-flight check reads and changes (position
 * mode, leverage, margin type, server time) and the answers that stop a client before any order
 * (a refused key, a skewed clock, 429 and 418 with `Retry-After`). Each is off by default, so
 * the double behaves as before unless a test turns one on through `fake.account`.
 */

/** What the double answers instead of the route, with optional headers. */
export interface FakeAnswer {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

/** One 429 or 418 the double sent, and the window it asked the client to stay away for. */
export interface FakeRateLimitAnswer {
  status: 429 | 418;
  path: string;
  /** When it was sent, and when its `Retry-After` ends (epoch ms). */
  at: number;
  until: number;
}

export interface FakeBinanceAccount {
  /** Every signed request answers 401 `{"code":-2015,...}` (a revoked key, or one without futures permission). */
  rejectSignedRequests: boolean;
  /** The body of that 401, made from the key the request sent (default Binance's -2015 answer): for tests of answers that echo the key. */
  rejectSignedBody?: (apiKey: string) => unknown;
  /** Hedge mode (`dualSidePosition`): orders without a LONG/SHORT position side are refused (-4061). */
  dualSidePosition: boolean;
  /** POST /fapi/v1/positionSide/dual is refused (-4068, as Binance does with open positions or orders). */
  refusePositionModeChange: boolean;
  /** Leverage and margin type by exchange symbol (`BTCUSDT`), as POST /fapi/v1/leverage and /fapi/v1/marginType set them. */
  leverage: Record<string, number>;
  marginType: Record<string, 'ISOLATED' | 'CROSSED'>;
  /**
   * The server's clock minus the local one, in ms. While non-zero, signed requests are checked as
   * Binance does: a `timestamp` more than 1 s ahead of the server, or older than `recvWindow`
   * (default 5 s), answers 400 -1021.
   */
  clockSkewMs: number;
  /**
   * The next requests to answer 429 or 418 with `Retry-After` (seconds), in turn: `on: 'order'`
   * waits for an order POST, `'any'` takes the next request. Until its `Retry-After` ends, every
   * further request answers 418 (Binance bans a client that does not wait), and is counted in
   * `requestsDuringBan`. Only requests carrying an API key count: the double bans the key, which
   * is what Stratbox honours (per exchange account); public market data is left alone.
   */
  rateLimits: Array<{ status: 429 | 418; retryAfterSeconds: number; on: 'order' | 'any' }>;
  /** The 429 and 418 answers sent, in order. */
  rateLimitAnswers: FakeRateLimitAnswer[];
  /** Requests that arrived while a `Retry-After` was running (a client that ignores bans). */
  requestsDuringBan: Array<{ method: string; path: string; at: number }>;
}

export function createFakeBinanceAccount(): FakeBinanceAccount {
  return {
    rejectSignedRequests: false,
    dualSidePosition: false,
    refusePositionModeChange: false,
    leverage: {},
    marginType: {},
    clockSkewMs: 0,
    rateLimits: [],
    rateLimitAnswers: [],
    requestsDuringBan: [],
  };
}

/** The double's server time. */
export const fakeServerTime = (account: FakeBinanceAccount, now = Date.now()) => now + account.clockSkewMs;

const ORDER_PATH = '/fapi/v1/order';

/**
 * Before any route: the public server time; for a request carrying an API key (`keyed`), a
 * running ban (418) and the next scripted 429/418. Null: answer normally.
 */
export function answerBeforeRoute(account: FakeBinanceAccount, method: string, path: string, keyed: boolean, now = Date.now()): FakeAnswer | null {
  if (method === 'GET' && path === '/fapi/v1/time') return { status: 200, body: { serverTime: fakeServerTime(account, now) } };
  if (!keyed) return null;
  const running = account.rateLimitAnswers.findLast((a) => a.until > now);
  if (running) {
    account.requestsDuringBan.push({ method, path, at: now });
    const until = Math.max(running.until, now + 2_000);
    account.rateLimitAnswers.push({ status: 418, path, at: now, until });
    return banAnswer(418, Math.ceil((until - now) / 1000));
  }
  const next = account.rateLimits[0];
  if (next && (next.on === 'any' || (method === 'POST' && path === ORDER_PATH))) {
    account.rateLimits.shift();
    account.rateLimitAnswers.push({ status: next.status, path, at: now, until: now + next.retryAfterSeconds * 1000 });
    return banAnswer(next.status, next.retryAfterSeconds);
  }
  return null;
}

function banAnswer(status: 429 | 418, retryAfterSeconds: number): FakeAnswer {
  const body =
    status === 429
      ? { code: -1003, msg: 'Too many requests; current limit is 1200 requests per minute.' }
      : { code: -1003, msg: 'Way too much request weight used; IP banned until later.' };
  return { status, body, headers: { 'Retry-After': String(retryAfterSeconds) } };
}

/** A signed request before its signature is checked: the refused key. */
export function answerSignedKey(account: FakeBinanceAccount, apiKey: string): FakeAnswer | null {
  if (!account.rejectSignedRequests) return null;
  const body = account.rejectSignedBody?.(apiKey) ?? { code: -2015, msg: 'Invalid API-key, IP, or permissions for action.' };
  return { status: 401, body };
}

/** A signed request whose signature is right: its timestamp against the server's clock. */
export function answerSignedTime(account: FakeBinanceAccount, params: Record<string, string>, now = Date.now()): FakeAnswer | null {
  if (account.clockSkewMs === 0) return null;
  const server = fakeServerTime(account, now);
  const timestamp = Number(params['timestamp']);
  const recvWindow = Number(params['recvWindow'] ?? 5000);
  if (Number.isFinite(timestamp) && timestamp < server + 1000 && server - timestamp <= recvWindow) return null;
  return { status: 400, body: { code: -1021, msg: "Timestamp for this request was 1000ms ahead of the server's time." } };
}

/** The account-settings routes (position mode, leverage, margin type); null for any other. */
export function answerAccountRoute(account: FakeBinanceAccount, method: string, path: string, params: Record<string, string>): FakeAnswer | null {
  switch (`${method} ${path}`) {
    case 'GET /fapi/v1/positionSide/dual':
      return { status: 200, body: { dualSidePosition: account.dualSidePosition } };
    case 'POST /fapi/v1/positionSide/dual': {
      const wanted = params['dualSidePosition'] === 'true';
      if (wanted === account.dualSidePosition) return { status: 400, body: { code: -4059, msg: 'No need to change position side.' } };
      if (account.refusePositionModeChange) {
        return { status: 400, body: { code: -4068, msg: 'Position side cannot be changed if there exists position.' } };
      }
      account.dualSidePosition = wanted;
      return { status: 200, body: { code: 200, msg: 'success' } };
    }
    case 'POST /fapi/v1/leverage': {
      const symbol = params['symbol'] ?? '';
      const leverage = Number(params['leverage']);
      if (!Number.isInteger(leverage) || leverage < 1 || leverage > 125) return { status: 400, body: { code: -4028, msg: 'Leverage is not valid' } };
      account.leverage[symbol] = leverage;
      return { status: 200, body: { leverage, maxNotionalValue: '1000000', symbol } };
    }
    case 'POST /fapi/v1/marginType': {
      const symbol = params['symbol'] ?? '';
      const type = params['marginType'] === 'ISOLATED' ? 'ISOLATED' : 'CROSSED';
      if ((account.marginType[symbol] ?? 'CROSSED') === type) return { status: 400, body: { code: -4046, msg: 'No need to change margin type.' } };
      account.marginType[symbol] = type;
      return { status: 200, body: { code: 200, msg: 'success' } };
    }
    default:
      return null;
  }
}

/** An order POST on a hedge-mode account without a LONG or SHORT position side is refused, as Binance does. */
export function answerOrderPositionSide(account: FakeBinanceAccount, params: Record<string, string>): FakeAnswer | null {
  if (!account.dualSidePosition) return null;
  const side = params['positionSide'];
  if (side === 'LONG' || side === 'SHORT') return null;
  return { status: 400, body: { code: -4061, msg: "Order's position side does not match user's setting." } };
}

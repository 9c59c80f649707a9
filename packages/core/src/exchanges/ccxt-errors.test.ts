import ccxt from 'ccxt';
import { describe, expect, it } from 'vitest';
import { secretEchoes } from '../testing/fake-binance-usdm.js';
import { maskSecrets } from '../util/mask-secrets.js';
import { classifyCcxtError, toGatewayError } from './ccxt-errors.js';

/* Messages of gateway errors, from real ccxt error classes with the messages ccxt gives them. */

const KEY = 'live/Key+9c1d"5e7f=3a2b-K3YH';
const SECRET = 'S3cr3t-never+shown/QQ==';

describe('ccxt error messages', () => {
  it('masks every echo of a secret, in any encoding, and leaves other text alone', () => {
    for (const secret of [KEY, SECRET]) {
      for (const echo of secretEchoes(secret, 'x'.repeat(9))) {
        const masked = maskSecrets(`before ${echo} after`, [KEY, SECRET]);
        expect(masked, echo).toMatch(/^before .*\*\*\*.* after$/);
        expect(masked).not.toContain(echo);
      }
    }
    expect(maskSecrets('Margin is insufficient. Key 9c1d is fine', [KEY, SECRET])).toBe('Margin is insufficient. Key 9c1d is fine');
  });

  it('maps refusals to clear messages with the exchange message masked, never the answer body', () => {
    const echoes = secretEchoes(KEY, SECRET).join(' ');
    const refused = new ccxt.InsufficientFunds(
      `binanceusdm ${JSON.stringify({ code: -2019, msg: `Margin is insufficient for ${echoes}`, extra: 'body-only' })}`,
    );
    const error = toGatewayError('binanceusdm', 'insufficient_funds', refused, [KEY, SECRET]);
    expect(error.message).toMatch(/^binanceusdm refused the order: insufficient funds \(InsufficientFunds: Margin is insufficient for \*\*\*/);
    for (const echo of secretEchoes(KEY, SECRET)) expect(error.message).not.toContain(echo);
    expect(error.message).not.toContain('body-only');

    const unavailable = new ccxt.ExchangeNotAvailable(
      `binanceusdm GET https://fapi.binance.com/fapi/v3/account?signature=abc 503 Service Unavailable <html>${KEY}</html>`,
    );
    const down = toGatewayError('binanceusdm', 'unavailable', unavailable, [KEY]);
    expect(down.message).toBe('binanceusdm is unavailable (ExchangeNotAvailable, HTTP 503)');
    expect(String(down.cause)).toBe('Error: ExchangeNotAvailable, HTTP 503');

    const denied = new ccxt.AuthenticationError(
      `binanceusdm GET https://fapi.binance.com/fapi/v3/account 401 Unauthorized {"msg":"bad key ${encodeURIComponent(KEY)}"}`,
    );
    const kind = classifyCcxtError(denied);
    expect(kind).toEqual({ kind: 'final', reason: 'authentication' });
    expect(toGatewayError('binanceusdm', 'authentication', denied, [KEY]).message).toBe(
      "binanceusdm refused the API key: check the credential's key, secret and permissions (AuthenticationError, HTTP 401)",
    );
  });
});

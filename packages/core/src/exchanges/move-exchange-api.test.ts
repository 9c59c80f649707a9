import ccxt from 'ccxt';
import { describe, expect, it } from 'vitest';
import { moveExchangeApi } from './move-exchange-api.js';

/** Every string URL under `urls.api`, nested ones included. */
function urlsOf(node: unknown): string[] {
  if (typeof node === 'string') return [node];
  if (node === null || typeof node !== 'object') return [];
  return Object.values(node).flatMap(urlsOf);
}

describe('moveExchangeApi', () => {
  it("moves every REST and stream URL of ccxt's pro binanceusdm to the local origin, paths kept", () => {
    const exchange = new ccxt.pro.binanceusdm();
    const before = urlsOf(exchange.urls['api']);
    expect(before.some((u) => u.startsWith('wss://'))).toBe(true);
    moveExchangeApi(exchange, 'http://127.0.0.1:4000/');
    const after = urlsOf(exchange.urls['api']);
    expect(after).toHaveLength(before.length);
    for (const url of after) expect(url).toMatch(/^(http|ws):\/\/127\.0\.0\.1:4000(\/|$)/);
    const api = exchange.urls['api'] as Record<string, unknown>;
    expect(api['fapiPrivate']).toBe('http://127.0.0.1:4000/fapi/v1');
    expect((api['ws'] as Record<string, unknown>)['future']).toBe('ws://127.0.0.1:4000/ws');
  });

  it('takes a stream origin of its own', () => {
    const exchange = new ccxt.pro.binanceusdm();
    moveExchangeApi(exchange, 'http://127.0.0.1:4000', 'ws://127.0.0.1:5000');
    expect(((exchange.urls['api'] as Record<string, unknown>)['ws'] as Record<string, unknown>)['future']).toBe('ws://127.0.0.1:5000/ws');
  });
});

import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { reconnectDelay } from './backoff.js';
import { createRealtimeClient } from './realtime-client.js';
import type { WebSocketLike } from './websocket-like.js';

const BT = 'bt_AAAAAAAAAAAAAAAAAAAAAA';
const CHANNEL = `backtest:${BT}:progress` as const;
const progress = (processedBars: number, status = 'running') => ({ backtestId: BT, status, progress: processedBars / 10, processedBars, totalBars: 10 });

/** A scripted WebSocket: the test plays the server. */
class FakeSocket implements WebSocketLike {
  static all: FakeSocket[] = [];
  readyState = 0;
  sent: Array<Record<string, unknown>> = [];
  onopen: WebSocketLike['onopen'] = null;
  onmessage: WebSocketLike['onmessage'] = null;
  onclose: WebSocketLike['onclose'] = null;
  onerror: WebSocketLike['onerror'] = null;
  constructor(readonly url: string) {
    FakeSocket.all.push(this);
  }
  send(data: string) {
    this.sent.push(JSON.parse(data) as Record<string, unknown>);
  }
  close(code = 1000, reason = '') {
    this.readyState = 3;
    this.closedWith = { code, reason };
  }
  closedWith: { code: number; reason: string } | null = null;
  // server side
  open() {
    this.readyState = 1;
    (this.onopen as (e: object) => void)({});
  }
  receive(message: unknown) {
    (this.onmessage as (e: { data: string }) => void)({ data: JSON.stringify(message) });
  }
  drop(code = 1006, reason = '') {
    this.readyState = 3;
    (this.onclose as (e: { code: number; reason: string }) => void)({ code, reason });
  }
  /** Opens, authenticates, and acknowledges every subscribe sent so far. */
  accept() {
    this.open();
    this.receive({ type: 'authenticated', userId: 'usr_AAAAAAAAAAAAAAAAAAAAAA' });
    for (const m of this.sent) if (m.type === 'subscribe') this.receive({ type: 'subscribed', channel: m.channel, id: m.id });
  }
}

const latest = () => FakeSocket.all.at(-1)!;

describe('the real-time client', () => {
  beforeEach(() => {
    FakeSocket.all = [];
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  const make = (options: Partial<Parameters<typeof createRealtimeClient>[0]> = {}) =>
    createRealtimeClient({ url: 'ws://x/ws', token: 'sbx_key', WebSocket: FakeSocket, lingerMs: 100, ...options });

  it('connects on first subscribe, authenticates, then subscribes once per channel however many handlers', () => {
    const client = make();
    expect(FakeSocket.all).toHaveLength(0);
    const a: unknown[] = [];
    const b: unknown[] = [];
    client.subscribe(CHANNEL, (data) => a.push(data.processedBars));
    client.subscribe(CHANNEL, (data) => b.push(data.processedBars));
    const socket = latest();
    expect(socket.url).toBe('ws://x/ws');
    socket.open();
    expect(socket.sent).toEqual([{ type: 'auth', token: 'sbx_key' }]);
    expect(client.state).toBe('authenticating');
    socket.receive({ type: 'authenticated', userId: 'usr_AAAAAAAAAAAAAAAAAAAAAA' });
    expect(client.state).toBe('open');
    expect(socket.sent.slice(1)).toEqual([{ type: 'subscribe', channel: CHANNEL, id: expect.any(String) }]);
    socket.receive({ type: 'event', channel: CHANNEL, data: progress(1) });
    expect(a).toEqual([1]);
    expect(b).toEqual([1]);
  });

  it('reconnects with backoff after a drop, re-subscribes, and skips channels whose final event it already has', () => {
    const client = make({ reconnect: { initialDelayMs: 100, maxDelayMs: 1000 } });
    const done = 'backtest:bt_BBBBBBBBBBBBBBBBBBBBBB:progress' as const;
    const seen: string[] = [];
    let acks = 0;
    client.subscribe(CHANNEL, (d) => seen.push(`a${d.processedBars}`), { onSubscribed: () => acks++ });
    client.subscribe(done, (d) => seen.push(`b${d.status}`));
    latest().accept();
    expect(acks).toBe(1);
    latest().receive({ type: 'event', channel: done, data: { ...progress(10, 'completed'), backtestId: 'bt_BBBBBBBBBBBBBBBBBBBBBB' } });
    latest().drop(1006);
    expect(client.state).toBe('reconnecting');
    expect(FakeSocket.all).toHaveLength(1);
    vi.advanceTimersByTime(49);
    expect(FakeSocket.all).toHaveLength(1);
    vi.advanceTimersByTime(100);
    expect(FakeSocket.all).toHaveLength(2);
    // the first retry fails too: the next waits longer
    latest().drop(1006);
    vi.advanceTimersByTime(99);
    expect(FakeSocket.all).toHaveLength(2);
    vi.advanceTimersByTime(101);
    expect(FakeSocket.all).toHaveLength(3);
    latest().accept();
    expect(
      latest()
        .sent.filter((m) => m.type === 'subscribe')
        .map((m) => m.channel),
    ).toEqual([CHANNEL]);
    expect(acks).toBe(2);
    // a repeated final event is not delivered twice
    latest().receive({ type: 'event', channel: done, data: { ...progress(10, 'completed'), backtestId: 'bt_BBBBBBBBBBBBBBBBBBBBBB' } });
    latest().receive({ type: 'event', channel: CHANNEL, data: progress(2) });
    expect(seen).toEqual(['bcompleted', 'a2']);
  });

  it('ends a refused subscription with its error and keeps the others', () => {
    const client = make();
    const errors: unknown[] = [];
    const other = 'backtest:bt_BBBBBBBBBBBBBBBBBBBBBB:progress' as const;
    client.subscribe(CHANNEL, () => {}, { onError: (e) => errors.push(e) });
    client.subscribe(other, () => {});
    const socket = latest();
    socket.open();
    socket.receive({ type: 'authenticated', userId: 'usr_AAAAAAAAAAAAAAAAAAAAAA' });
    const ref = socket.sent.find((m) => m.channel === CHANNEL)!.id;
    socket.receive({ type: 'error', id: ref, error: { code: 'NOT_FOUND', message: `Channel ${CHANNEL} not found` } });
    expect(errors).toEqual([expect.objectContaining({ code: 'NOT_FOUND', status: 404, message: `Channel ${CHANNEL} not found` })]);
    socket.drop(1006);
    vi.advanceTimersByTime(1000);
    latest().accept();
    expect(
      latest()
        .sent.filter((m) => m.type === 'subscribe')
        .map((m) => m.channel),
    ).toEqual([other]);
  });

  it('does not reconnect after 4401: every subscription gets UNAUTHENTICATED', () => {
    const client = make();
    const errors: unknown[] = [];
    client.subscribe(CHANNEL, () => {}, { onError: (e) => errors.push(e) });
    latest().open();
    latest().receive({ type: 'error', id: null, error: { code: 'UNAUTHENTICATED', message: 'Invalid API key' } });
    latest().drop(4401, 'Unauthenticated');
    vi.advanceTimersByTime(60_000);
    expect(FakeSocket.all).toHaveLength(1);
    expect(errors).toEqual([expect.objectContaining({ code: 'UNAUTHENTICATED' })]);
    expect(client.state).toBe('idle');
  });

  it('unsubscribes when the last handler goes, and closes the idle socket after the linger time', () => {
    const client = make();
    const stopA = client.subscribe(CHANNEL, () => {});
    const stopB = client.subscribe(CHANNEL, () => {});
    const socket = latest();
    socket.accept();
    stopA();
    expect(socket.sent.filter((m) => m.type === 'unsubscribe')).toHaveLength(0);
    stopB();
    stopB();
    expect(socket.sent.filter((m) => m.type === 'unsubscribe')).toEqual([{ type: 'unsubscribe', channel: CHANNEL, id: expect.any(String) }]);
    vi.advanceTimersByTime(100);
    expect(socket.closedWith).toEqual({ code: 1000, reason: 'No subscriptions' });
    expect(client.state).toBe('idle');
  });

  it('ignores messages off the contract and events of a channel under another id', () => {
    const errors: unknown[] = [];
    const client = make({ onError: (e) => errors.push(e) });
    const seen: unknown[] = [];
    client.subscribe(CHANNEL, (d) => seen.push(d));
    latest().accept();
    latest().receive({ type: 'event', channel: CHANNEL, data: { ...progress(1), backtestId: 'bt_CCCCCCCCCCCCCCCCCCCCCC' } });
    latest().receive({ type: 'event', channel: CHANNEL, data: { nope: true } });
    (latest().onmessage as (e: { data: string }) => void)({ data: 'not json' });
    expect(seen).toEqual([]);
    expect(errors).toHaveLength(2);
  });

  it('throws at once for a malformed channel, a missing WebSocket, or after close()', () => {
    const client = make();
    expect(() => client.subscribe('backtest:x:progress' as typeof CHANNEL, () => {})).toThrow(/Not a channel/);
    const noWs = createRealtimeClient({ url: 'ws://x/ws', ...({ WebSocket: undefined } as object) });
    const original = (globalThis as { WebSocket?: unknown }).WebSocket;
    (globalThis as { WebSocket?: unknown }).WebSocket = undefined;
    try {
      expect(() => noWs.subscribe(CHANNEL, () => {})).toThrow(/pass the `ws` package class/);
    } finally {
      (globalThis as { WebSocket?: unknown }).WebSocket = original;
    }
    client.close();
    expect(client.state).toBe('closed');
    expect(() => client.subscribe(CHANNEL, () => {})).toThrow(/closed/);
  });
});

describe('reconnectDelay', () => {
  it('doubles per attempt up to the cap, with half of each step random', () => {
    const opts = { initialDelayMs: 100, maxDelayMs: 1000 };
    expect([0, 1, 2, 3, 4, 10].map((n) => reconnectDelay(n, opts, () => 0))).toEqual([50, 100, 200, 400, 500, 500]);
    expect([0, 1, 2, 3, 4, 10].map((n) => reconnectDelay(n, opts, () => 1))).toEqual([100, 200, 400, 800, 1000, 1000]);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WS_CLOSE_CODES, backtestProgressChannel } from '@stratbox/core/contract';
import { createFakeBacktests } from './harness/backtest-events.js';
import { sleep } from './harness/deferred.js';
import { openAuthedSocket, openRawSocket, type RawSocket } from './harness/ws-raw-client.js';
import { startWsTestService, type WsTestService } from './harness/ws-service.js';

const LIMITS = { authTimeoutMs: 300, maxSubscriptionsPerSocket: 5, maxSocketsPerUser: 3, messageRate: { burst: 30, perSecond: 10 } };

describe('the WebSocket endpoint answers bad input as documented and keeps serving everyone else', () => {
  const backtests = createFakeBacktests();
  let service: WsTestService;
  let user: { userId: string; apiKey: string };
  /** A well-behaved socket of another user, checked after every abuse. */
  let bystander: RawSocket;
  let bystanderBacktest: string;
  let bystanderEvents = 0;

  beforeAll(async () => {
    service = await startWsTestService({ channelResolvers: { backtest: backtests.resolver } }, LIMITS);
    user = await service.newUser('abuser');
    const other = await service.newUser('bystander');
    bystanderBacktest = backtests.create(other.userId);
    bystander = await openAuthedSocket(service.wsUrl, other.apiKey);
    bystander.send({ type: 'subscribe', channel: backtestProgressChannel(bystanderBacktest), id: 'b' });
    expect(await bystander.next()).toMatchObject({ type: 'subscribed' });
  });
  afterAll(async () => {
    bystander.close();
    await service.close();
  });

  /** The bystander still gets its events and HTTP still answers. */
  async function expectOthersServed() {
    bystanderEvents++;
    service.stratbox.events.publish(backtestProgressChannel(bystanderBacktest), backtests.progress(bystanderBacktest, bystanderEvents, 1000));
    expect(await bystander.next()).toMatchObject({ type: 'event', data: { processedBars: bystanderEvents } });
    expect((await fetch(`${service.baseUrl}/healthz`)).status).toBe(200);
  }

  /** The socket still works: a valid subscribe is acknowledged. */
  async function expectUsable(socket: RawSocket) {
    const id = backtests.create(user.userId);
    socket.send({ type: 'subscribe', channel: backtestProgressChannel(id), id: 'ok' });
    expect(await socket.waitFor((m) => m.id === 'ok')).toMatchObject({ type: 'subscribed', id: 'ok' });
    socket.send({ type: 'unsubscribe', channel: backtestProgressChannel(id), id: 'ok-u' });
    await socket.waitFor((m) => m.id === 'ok-u');
  }

  it('non-JSON text frames answer VALIDATION_FAILED and the socket stays open', async () => {
    const socket = await openAuthedSocket(service.wsUrl, user.apiKey);
    for (const text of ['hello', '{"type":', '', '\u0000']) {
      socket.send(text);
      expect(await socket.next()).toEqual({
        type: 'error',
        id: null,
        error: { code: 'VALIDATION_FAILED', message: 'Malformed JSON: every message is a JSON object with a "type"' },
      });
    }
    await expectUsable(socket);
    await expectOthersServed();
    socket.close();
  });

  it('binary frames answer VALIDATION_FAILED and the socket stays open', async () => {
    const socket = await openAuthedSocket(service.wsUrl, user.apiKey);
    socket.ws.send(Buffer.from(JSON.stringify({ type: 'subscribe', channel: backtestProgressChannel(backtests.create(user.userId)), id: 'x' })), {
      binary: true,
    });
    expect(await socket.next()).toEqual({
      type: 'error',
      id: null,
      error: { code: 'VALIDATION_FAILED', message: 'Binary frames are not supported; send JSON text messages' },
    });
    await expectUsable(socket);
    await expectOthersServed();
    socket.close();
  });

  it('JSON that is not a client message answers VALIDATION_FAILED, with the client ref when it has one', async () => {
    const socket = await openAuthedSocket(service.wsUrl, user.apiKey);
    const cases: Array<[unknown, string | null, RegExp]> = [
      [{ type: 'hello', id: 'r1' }, 'r1', /^Unknown message type "hello"; expected auth, subscribe, unsubscribe$/],
      [{ id: 'r2' }, 'r2', /^Unknown message type missing/],
      [[1, 2], null, /JSON object/],
      [42, null, /JSON object/],
      [null, null, /JSON object/],
      [{ type: 'subscribe', channel: 'backtest:nope:progress', id: 'r3' }, 'r3', /^Invalid channel: Expected backtest:<bt_id>:progress/],
      [{ type: 'subscribe', channel: 'strategy:str_AAAAAAAAAAAAAAAAAAAAAA:source', id: 'r4' }, 'r4', /^Invalid channel/],
      [{ type: 'subscribe', channel: backtestProgressChannel(backtests.create(user.userId)) }, null, /^Invalid id/],
      [{ type: 'subscribe', channel: backtestProgressChannel(backtests.create(user.userId)), id: 'r5', extra: 1 }, 'r5', /Unknown field: extra/],
      [{ type: 'unsubscribe', channel: 7, id: 'r6' }, 'r6', /^Invalid channel/],
      [{ type: 'subscribe', channel: backtestProgressChannel(backtests.create(user.userId)), id: 'x'.repeat(65) }, null, /^Invalid id/],
    ];
    for (const [message, id, pattern] of cases) {
      socket.send(message);
      const answer = await socket.next();
      expect(answer, JSON.stringify(message)).toMatchObject({ type: 'error', id, error: { code: 'VALIDATION_FAILED' } });
      expect((answer.error as { message: string }).message, JSON.stringify(message)).toMatch(pattern);
    }
    socket.send({ type: 'auth', token: 'again' });
    expect(await socket.next()).toMatchObject({ type: 'error', id: null, error: { code: 'VALIDATION_FAILED', message: 'Already authenticated' } });
    await expectUsable(socket);
    await expectOthersServed();
    socket.close();
  });

  it('oversized messages answer PAYLOAD_TOO_LARGE; frames past the hard cap close the socket with 1009', async () => {
    const socket = await openAuthedSocket(service.wsUrl, user.apiKey);
    socket.send({ type: 'subscribe', channel: backtestProgressChannel(backtests.create(user.userId)), id: 'big', pad: 'x'.repeat(5000) });
    expect(await socket.next()).toMatchObject({
      type: 'error',
      id: null,
      error: { code: 'PAYLOAD_TOO_LARGE', message: expect.stringMatching(/at most 4096 bytes/) },
    });
    await expectUsable(socket);

    socket.send('x'.repeat(70_000));
    expect((await socket.closed).code).toBe(WS_CLOSE_CODES.MESSAGE_TOO_BIG);
    await expectOthersServed();
  });

  it('a text frame that is not UTF-8 closes the socket with 1007', async () => {
    const socket = await openAuthedSocket(service.wsUrl, user.apiKey);
    socket.ws.send(Buffer.from([0x7b, 0xff, 0xfe, 0x7d]), { binary: false });
    expect((await socket.closed).code).toBe(WS_CLOSE_CODES.INVALID_PAYLOAD);
    await expectOthersServed();
  });

  it('a subscribe flood gets one answer per message: acks up to the subscription limit, then RATE_LIMITED', async () => {
    const socket = await openAuthedSocket(service.wsUrl, user.apiKey);
    const ids = Array.from({ length: 200 }, () => backtests.create(user.userId));
    ids.forEach((id, i) => socket.send({ type: 'subscribe', channel: backtestProgressChannel(id), id: `f${i}` }));
    for (let i = 0; i < 200; i++) await socket.next(5000);
    const answers = socket.received.slice(1);
    expect(answers).toHaveLength(200);
    expect(new Set(answers.map((m) => m.id))).toEqual(new Set(ids.map((_, i) => `f${i}`)));
    const acks = answers.filter((m) => m.type === 'subscribed');
    const limited = answers.filter((m) => m.type === 'error');
    expect(acks).toHaveLength(LIMITS.maxSubscriptionsPerSocket);
    expect(limited).toHaveLength(200 - LIMITS.maxSubscriptionsPerSocket);
    expect(limited.every((m) => (m.error as { code: string }).code === 'RATE_LIMITED')).toBe(true);
    const messages = new Set(limited.map((m) => (m.error as { message: string }).message));
    expect(messages).toEqual(
      new Set(['At most 5 subscriptions per socket; unsubscribe from one first', 'Too many messages: at most 10 per second, in bursts of 30']),
    );
    expect(socket.ws.readyState).toBe(socket.ws.OPEN);
    // the granted subscriptions work
    const granted = ids[Number(String(acks[0]!.id).slice(1))]!;
    service.stratbox.events.publish(backtestProgressChannel(granted), backtests.progress(granted, 1, 2));
    expect(await socket.waitFor((m) => m.type === 'event')).toMatchObject({ channel: backtestProgressChannel(granted) });
    await expectOthersServed();
    socket.close();
  });

  it('a flood of garbage is rate limited too: one answer per message, and the socket stays open', async () => {
    const socket = await openAuthedSocket(service.wsUrl, user.apiKey);
    for (let i = 0; i < 100; i++) socket.send(i % 2 ? 'garbage' : { type: 'bogus', id: `g${i}` });
    for (let i = 0; i < 100; i++) await socket.next(5000);
    const answers = socket.received.slice(1);
    const codes = answers.map((m) => (m.error as { code: string }).code);
    // the auth message took one token of the burst
    expect(codes.slice(0, LIMITS.messageRate.burst - 1).every((c) => c === 'VALIDATION_FAILED')).toBe(true);
    expect(codes.filter((c) => c === 'RATE_LIMITED').length).toBeGreaterThanOrEqual(100 - LIMITS.messageRate.burst - 5);
    // a rate-limited message that is readable JSON still gets its ref back
    expect(answers.some((m) => (m.error as { code: string }).code === 'RATE_LIMITED' && typeof m.id === 'string')).toBe(true);
    expect(socket.ws.readyState).toBe(socket.ws.OPEN);
    await expectOthersServed();
    socket.close();
  });

  describe('before authentication', () => {
    it('closes a socket whose first message is not auth with 4401', async () => {
      for (const first of [{ type: 'subscribe', channel: backtestProgressChannel(backtests.create(user.userId)), id: 's' }, 'not json', { type: 'nope' }]) {
        const socket = await openRawSocket(service.wsUrl);
        socket.send(first);
        expect(await socket.next()).toMatchObject({ type: 'error', id: null, error: { code: 'UNAUTHENTICATED' } });
        expect(await socket.closed).toEqual({ code: WS_CLOSE_CODES.UNAUTHENTICATED, reason: 'Unauthenticated' });
      }
      const binary = await openRawSocket(service.wsUrl);
      binary.ws.send(Buffer.from([1, 2, 3]));
      expect((await binary.closed).code).toBe(WS_CLOSE_CODES.UNAUTHENTICATED);
      await expectOthersServed();
    });

    it('closes a socket with a wrong token (message or header) with 4401', async () => {
      const byMessage = await openRawSocket(service.wsUrl);
      byMessage.send({ type: 'auth', token: 'sbx_wrong' });
      expect(await byMessage.next()).toEqual({ type: 'error', id: null, error: { code: 'UNAUTHENTICATED', message: 'Invalid API key' } });
      expect((await byMessage.closed).code).toBe(WS_CLOSE_CODES.UNAUTHENTICATED);

      const byHeader = await openRawSocket(service.wsUrl, { token: 'sbx_wrong' });
      expect(await byHeader.next()).toMatchObject({ type: 'error', error: { code: 'UNAUTHENTICATED' } });
      expect((await byHeader.closed).code).toBe(WS_CLOSE_CODES.UNAUTHENTICATED);
      await expectOthersServed();
    });

    it('closes a socket that sends nothing within the auth timeout with 4408', async () => {
      const socket = await openRawSocket(service.wsUrl);
      const started = Date.now();
      expect(await socket.next(2000)).toMatchObject({ type: 'error', error: { code: 'UNAUTHENTICATED', message: 'No auth message within 300 ms' } });
      expect((await socket.closed).code).toBe(WS_CLOSE_CODES.AUTH_TIMEOUT);
      expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    });

    it('answers 404 to an upgrade on another path', async () => {
      await expect(openRawSocket(service.wsUrl.replace('/ws', '/nope'))).rejects.toThrow(/404/);
    });
  });

  it('limits sockets per user: one too many answers RATE_LIMITED and closes with 4429; the others keep working', async () => {
    const limited = await service.newUser('many');
    const open = await Promise.all([1, 2, 3].map(() => openAuthedSocket(service.wsUrl, limited.apiKey)));
    const extra = await openRawSocket(service.wsUrl, { token: limited.apiKey });
    expect(await extra.next()).toEqual({
      type: 'error',
      id: null,
      error: { code: 'RATE_LIMITED', message: 'At most 3 open sockets per user; close one first' },
    });
    expect((await extra.closed).code).toBe(WS_CLOSE_CODES.TOO_MANY_SOCKETS);
    for (const socket of open) {
      const id = backtests.create(limited.userId);
      socket.send({ type: 'subscribe', channel: backtestProgressChannel(id), id: 'still' });
      expect(await socket.next()).toMatchObject({ type: 'subscribed' });
    }
    open[0]!.close();
    await open[0]!.closed;
    await sleep(20);
    const again = await openAuthedSocket(service.wsUrl, limited.apiKey);
    again.close();
    open.slice(1).forEach((s) => s.close());
    await expectOthersServed();
  });
});

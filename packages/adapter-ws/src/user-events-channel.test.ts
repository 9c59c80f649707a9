import { createServer } from 'node:http';
import { afterEach, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createMemoryStore, createSilentLogger, createStratbox, recordNotificationEvent } from '@stratbox/core';
import { userEventsChannel } from '@stratbox/core/contract';
import { listenLocally } from '@stratbox/core/testing';
import { attachStratboxWs } from './attach-stratbox-ws.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A socket signed in with `apiKey`, collecting every message it gets. */
async function signedIn(port: number, apiKey: string) {
  const ws = new WebSocket(`ws://127.0.0.1:${port}/ws`, { headers: { authorization: `Bearer ${apiKey}` } });
  cleanups.push(() => ws.close());
  const messages: Array<Record<string, unknown>> = [];
  const waiters: Array<() => void> = [];
  ws.on('message', (data) => {
    messages.push(JSON.parse(data.toString()));
    for (const wake of waiters.splice(0)) wake();
  });
  const next = async (match: (m: Record<string, unknown>) => boolean, timeoutMs = 10_000) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = messages.find(match);
      if (found) return found;
      if (Date.now() > deadline) throw new Error(`No such message in ${timeoutMs} ms: ${JSON.stringify(messages)}`);
      await new Promise<void>((resolve) => {
        waiters.push(resolve);
        setTimeout(resolve, 200);
      });
    }
  };
  await next((m) => m.type === 'authenticated');
  return { ws, messages, next };
}

it("streams a signed-in user's notification events on user:<id>:events, and refuses another user's channel as not found", async () => {
  const stratbox = createStratbox({ store: createMemoryStore(), logger: createSilentLogger(), notifications: { pollIntervalMs: 20 } });
  cleanups.push(() => stratbox.close());
  await stratbox.start();
  const alice = await stratbox.users.createUser('alice');
  const bob = await stratbox.users.createUser('bob');
  const server = createServer();
  const realtime = attachStratboxWs(server, stratbox);
  cleanups.push(() => realtime.close());
  const { port, close } = await listenLocally(server);
  cleanups.push(close);

  const socket = await signedIn(port, alice.apiKey);
  socket.ws.send(JSON.stringify({ type: 'subscribe', channel: userEventsChannel(bob.userId), id: 'theirs' }));
  expect(await socket.next((m) => m.id === 'theirs')).toMatchObject({ type: 'error', error: { code: 'NOT_FOUND' } });
  socket.ws.send(JSON.stringify({ type: 'subscribe', channel: userEventsChannel(alice.userId), id: 'mine' }));
  await socket.next((m) => m.type === 'subscribed' && m.id === 'mine');

  const write = (userId: string, id: string) =>
    stratbox.store.transaction((tx) =>
      recordNotificationEvent(tx, {
        type: 'backtest.failed',
        userId,
        subject: { kind: 'backtest', id },
        summary: `Backtest ${id} failed`,
        data: { backtestId: id, strategyId: 'str_AAAAAAAAAAAAAAAAAAAAAA', error: { code: 'STRATEGY_ERROR', message: 'boom' } },
        time: new Date().toISOString(),
      }),
    );
  await write(bob.userId, 'bt_BobBobBobBobBobBobBob1');
  const eventId = await write(alice.userId, 'bt_AliceAliceAliceAlice1');
  const event = await socket.next((m) => m.type === 'event');
  expect(event).toMatchObject({ channel: userEventsChannel(alice.userId), data: { id: eventId, type: 'backtest.failed', userId: alice.userId } });
  expect(JSON.stringify(socket.messages)).not.toContain('bt_BobBobBobBobBobBobBob1');
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createStratboxClient, type StratboxClientError } from '@stratbox/client';
import { WS_CLOSE_CODES, deploymentOrdersChannel } from '@stratbox/core/contract';
import { deferred } from './harness/deferred.js';
import { createUserWithCli, startServerProcess, tempDataDir, type ServerProcess } from './harness/server-process.js';
import { openAuthedSocket, openRawSocket } from './harness/ws-raw-client.js';

describe('the example server serves HTTP and WebSocket on one port', () => {
  const data = tempDataDir();
  const env = { DATA_DIR: data.dir };
  let server: ServerProcess;
  let apiKey: string;

  beforeAll(async () => {
    server = await startServerProcess(env);
    apiKey = (await createUserWithCli('alice', env)).apiKey;
  });
  afterAll(async () => {
    await server?.stop('SIGKILL');
    data.remove();
  });

  it('answers HTTP and /ws on the same port, with the same API keys', async () => {
    const wsUrl = `${server.baseUrl.replace('http', 'ws')}/ws`;
    expect((await fetch(`${server.baseUrl}/api/strategies`, { headers: { authorization: `Bearer ${apiKey}` } })).status).toBe(200);
    const socket = await openRawSocket(wsUrl, { token: apiKey });
    expect(await socket.next()).toMatchObject({ type: 'authenticated' });
    const channel = deploymentOrdersChannel(`dep_${'Z'.repeat(22)}`);
    socket.send({ type: 'subscribe', channel, id: 'd1' });
    expect(await socket.next()).toEqual({ type: 'error', id: 'd1', error: { code: 'NOT_FOUND', message: `Channel ${channel} not found` } });
    socket.close();

    const client = createStratboxClient({ baseUrl: server.baseUrl, apiKey, WebSocket });
    const refused = deferred<StratboxClientError>();
    client.deployments.watchOrders(`dep_${'Y'.repeat(22)}`, () => {}, { onError: (error) => refused.resolve(error) });
    expect((await refused.promise).code).toBe('NOT_FOUND');
    client.realtime.close();
  });

  it('closes sockets with 1001 (going away) on SIGTERM and exits cleanly', async () => {
    const socket = await openAuthedSocket(`${server.baseUrl.replace('http', 'ws')}/ws`, apiKey);
    const exit = server.stop('SIGTERM');
    expect((await socket.closed).code).toBe(WS_CLOSE_CODES.GOING_AWAY);
    expect(await exit).toBe(0);
  });
});

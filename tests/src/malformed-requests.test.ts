import { request } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorBody } from '@stratbox/core/contract';
import { createUserWithCli, startServerProcess, tempDataDir, type ServerProcess } from './harness/server-process.js';

/*
 * Requests that go wrong before a route handler runs still get the documented error body: a
 * path Express cannot percent-decode is a 400 VALIDATION_FAILED (not a logged 500), and a request
 * Node's HTTP parser refuses (a 20 KB query string: 431; a malformed request line: 400) gets a
 * complete response with a JSON body instead of a bare status line. Over real HTTP against the
 * example server started as its own process.
 */

interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** GET `path` exactly as written (no URL normalisation), on a connection of its own. */
function get(baseUrl: string, path: string, headers: Record<string, string> = {}): Promise<Raw> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const req = request({ host: hostname, port, path, headers, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, text }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** Writes `bytes` on a raw TCP connection and resolves with everything the server sent back. */
function rawExchange(port: number, bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(bytes));
    let received = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (received += chunk));
    socket.on('end', () => resolve(received));
    socket.on('error', reject);
  });
}

function errorBody(text: string) {
  return ErrorBody.parse(JSON.parse(text));
}

describe('malformed requests outside the router get the documented error body', () => {
  const data = tempDataDir();
  let server: ServerProcess;
  let auth: Record<string, string>;

  beforeAll(async () => {
    server = await startServerProcess({ DATA_DIR: data.dir });
    auth = { authorization: `Bearer ${(await createUserWithCli('alice', { DATA_DIR: data.dir })).apiKey}` };
  });
  afterAll(async () => {
    await server?.stop();
    data.remove();
  });

  // a path of the contract with a bad parameter is a bad request; any other path is not found
  for (const [path, status, code] of [
    ['/api/strategies/%', 400, 'VALIDATION_FAILED'],
    ['/api/strategies/%E0%A4%A', 400, 'VALIDATION_FAILED'],
    ['/api/marketplace/%/record', 400, 'VALIDATION_FAILED'],
    ['/api/no-such-route/%zz', 404, 'NOT_FOUND'],
  ] as const) {
    it(`GET ${path} answers ${status} ${code}, not an unhandled 500`, async () => {
      const res = await get(server.baseUrl, path, auth);
      expect(res.status, res.text).toBe(status);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(errorBody(res.text).error.code).toBe(code);
      expect(server.lines.filter((line) => line.includes('Unhandled error'))).toEqual([]);
    });
  }

  it('a 20 KB query string answers 431 with a JSON error body', async () => {
    const res = await get(server.baseUrl, `/api/strategies?name=${'x'.repeat(20_000)}`, auth);
    expect(res.status).toBe(431);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(Number(res.headers['content-length'])).toBe(Buffer.byteLength(res.text));
    const body = errorBody(res.text);
    expect(body.error.code).toBe('VALIDATION_FAILED');
    expect(body.error.message).toMatch(/too large/);
  });

  it('a malformed request line answers 400 with a JSON error body, and closes the connection', async () => {
    const response = await rawExchange(server.port, 'GET /api/strategies HTTP/1.1\r\nHost: x\r\nBad Header Line\r\n\r\n');
    const [head, payload] = response.split('\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(head).toMatch(/\r\nConnection: close/i);
    expect(errorBody(payload!).error.code).toBe('VALIDATION_FAILED');
  });

  it('the server still answers after all of these', async () => {
    const res = await get(server.baseUrl, '/api/strategies', auth);
    expect(res.status, res.text).toBe(200);
  });
});

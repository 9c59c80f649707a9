import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { StratboxError } from '../errors/index.js';
import { type LocalServer, listenLocally } from '../testing/listen-locally.js';
import { createGuardedHttpClient, type GuardedHttpError, type HostResolver } from './guarded-http.js';

const servers: LocalServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function serve(handle: (req: IncomingMessage, res: ServerResponse) => void): Promise<LocalServer> {
  const server = await listenLocally(createServer(handle));
  servers.push(server);
  return server;
}

/** A resolver answering fixed addresses per name, in turn (the last answer repeats). */
function scriptedLookup(answers: Record<string, string[][]>): HostResolver & { calls: string[] } {
  const calls: string[] = [];
  const resolver = async (hostname: string) => {
    calls.push(hostname);
    const list = answers[hostname];
    if (!list) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    const addresses = list.length > 1 ? list.shift()! : list[0]!;
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return Object.assign(resolver, { calls });
}

async function refusal(promise: Promise<unknown>): Promise<StratboxError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(StratboxError);
  expect((error as StratboxError).code).toBe('VALIDATION_FAILED');
  return error as StratboxError;
}

async function failure(promise: Promise<unknown>): Promise<GuardedHttpError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toMatchObject({ name: 'GuardedHttpError' });
  return error as GuardedHttpError;
}

describe('checkUrl without the allow setting', () => {
  const client = createGuardedHttpClient({
    lookup: scriptedLookup({
      'internal.example': [['10.1.2.3']],
      'mixed.example': [['93.184.216.34', '127.0.0.1']],
      'public.example': [['93.184.216.34']],
      'metadata.example': [['169.254.169.254']],
    }),
  });

  it.each([
    ['https://127.0.0.1/hook', 'loopback'],
    ['https://10.0.0.1/hook', 'private'],
    ['https://169.254.169.254/latest/meta-data', 'link-local'],
    ['https://[::1]:8443/hook', 'loopback'],
    ['https://[::ffff:127.0.0.1]/hook', 'loopback'],
    ['https://0x7f.1/hook', 'loopback'],
    ['https://internal.example/hook', 'private'],
    ['https://metadata.example/x', 'link-local'],
    ['https://mixed.example/hook', 'loopback'],
  ])('refuses %s (%s) with a 400 naming why', async (url, why) => {
    const error = await refusal(client.checkUrl(url));
    expect(error.status).toBe(400);
    expect(error.message).toContain(why);
    expect(error.message).toContain('STRATBOX_NOTIFY_ALLOW_HOSTS');
    expect(error.message).not.toContain('/hook');
    expect(error.message).not.toContain('meta-data');
  });

  it('refuses localhost as the system resolves it', async () => {
    const error = await refusal(createGuardedHttpClient().checkUrl('https://localhost/secret-path'));
    expect(error.message).toMatch(/localhost resolves to a loopback address/);
    expect(error.message).not.toContain('secret-path');
  });

  it('refuses plain http and other schemes even to a public host, and unknown hosts', async () => {
    expect((await refusal(client.checkUrl('http://public.example/hook'))).message).toMatch(/plain http/);
    expect((await refusal(client.checkUrl('ftp://public.example/hook'))).message).toMatch(/scheme ftp: is not allowed/);
    expect((await refusal(client.checkUrl('https://nowhere.example/hook'))).message).toMatch(/nowhere.example was not found/);
    expect((await refusal(client.checkUrl('not a url'))).message).toMatch(/not valid/);
  });

  it('admits a public https host', async () => {
    await expect(client.checkUrl('https://public.example/hook')).resolves.toBeUndefined();
    await expect(client.checkUrl('https://93.184.216.34/hook')).resolves.toBeUndefined();
  });
});

describe('checkUrl with the allow setting', () => {
  const client = createGuardedHttpClient({
    allowHosts: '127.0.0.1,localhost,10.0.0.0/8,[::1],169.254.169.254',
    lookup: scriptedLookup({ localhost: [['127.0.0.1', '::1']], 'internal.example': [['10.1.2.3']], 'other.example': [['192.168.1.1']] }),
  });

  it.each([
    'http://127.0.0.1:9/hook',
    'http://10.0.0.1/hook',
    'http://169.254.169.254/',
    'http://[::1]:8443/hook',
    'http://localhost:3000/hook',
    'https://internal.example/hook',
  ])('admits %s', async (url) => {
    await expect(client.checkUrl(url)).resolves.toBeUndefined();
  });

  it('still refuses what the list leaves out', async () => {
    await refusal(client.checkUrl('https://other.example/hook'));
    await refusal(client.checkUrl('https://192.168.0.1/hook'));
  });
});

describe('post', () => {
  it('posts to an admitted local receiver and returns its answer', async () => {
    let seen: { method?: string; host?: string; body?: string; type?: string } = {};
    const receiver = await serve((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c));
      req.on('end', () => {
        seen = { method: req.method, host: req.headers.host, body, type: req.headers['content-type'] };
        res.writeHead(201, { 'x-answer': 'yes' });
        res.end('created');
      });
    });
    const client = createGuardedHttpClient({ allowHosts: ['127.0.0.1'] });
    const answer = await client.post(`${receiver.url}/hook?x=1`, { headers: { 'content-type': 'application/json' }, body: '{"a":1}' });
    expect(answer).toMatchObject({ status: 201, bodyExcerpt: 'created', truncated: false });
    expect(answer.headers['x-answer']).toBe('yes');
    expect(seen).toEqual({ method: 'POST', host: `127.0.0.1:${receiver.port}`, body: '{"a":1}', type: 'application/json' });
  });

  it('connects to the checked address while keeping the name for Host', async () => {
    let host: string | undefined;
    const receiver = await serve((req, res) => {
      host = req.headers.host;
      res.end('ok');
    });
    // hooks.example resolves nowhere for real: only the checked (injected) address can be reached.
    const client = createGuardedHttpClient({ allowHosts: '127.0.0.1', lookup: scriptedLookup({ 'hooks.example': [['127.0.0.1']] }) });
    const answer = await client.post(`http://hooks.example:${receiver.port}/hook`, { body: 'x' });
    expect(answer.status).toBe(200);
    expect(host).toBe(`hooks.example:${receiver.port}`);
  });

  it('refuses at send time when DNS changed after the check', async () => {
    let hits = 0;
    const receiver = await serve((_req, res) => {
      hits++;
      res.end('ok');
    });
    const lookup = scriptedLookup({ 'rebind.example': [['93.184.216.34'], ['127.0.0.1']] });
    const client = createGuardedHttpClient({ lookup });
    await client.checkUrl(`https://rebind.example:${receiver.port}/hook`);
    const error = await failure(client.post(`https://rebind.example:${receiver.port}/hook`, { body: 'x' }));
    expect(error.code).toBe('TARGET_REFUSED');
    expect(error.message).toMatch(/rebind.example resolves to a loopback address/);
    expect(error.message).not.toContain('/hook');
    expect(lookup.calls).toEqual(['rebind.example', 'rebind.example']);
    expect(hits).toBe(0);
  });

  it('refuses a literal internal address without the allow setting, before connecting', async () => {
    let hits = 0;
    const receiver = await serve((_req, res) => {
      hits++;
      res.end('ok');
    });
    const error = await failure(createGuardedHttpClient().post(`${receiver.url}/hook`, { body: 'x' }));
    expect(error.code).toBe('TARGET_REFUSED');
    expect(hits).toBe(0);
  });

  it('does not follow a redirect: the 3xx is the answer and its target is never asked', async () => {
    let targetHits = 0;
    const target = await serve((_req, res) => {
      targetHits++;
      res.end('you should not see me');
    });
    const redirector = await serve((_req, res) => {
      res.writeHead(302, { location: `${target.url}/landing` });
      res.end();
    });
    const client = createGuardedHttpClient({ allowHosts: '127.0.0.1' });
    const answer = await client.post(`${redirector.url}/hook`, { body: 'x' });
    expect(answer.status).toBe(302);
    expect(answer.headers.location).toBe(`${target.url}/landing`);
    // The target is reachable: a direct post lands, so a followed redirect would have been counted.
    await client.post(`${target.url}/direct`, { body: 'x' });
    expect(targetHits).toBe(1);
  });

  it('gives up on a server that never answers, within the timeout', async () => {
    const silent = await serve(() => {});
    const client = createGuardedHttpClient({ allowHosts: '127.0.0.1', timeoutMs: 300 });
    const started = Date.now();
    const error = await failure(client.post(`${silent.url}/hook`, { body: 'x' }));
    expect(error.code).toBe('TIMEOUT');
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('counts the timeout over the whole exchange: a body trickling forever times out', async () => {
    const timers: NodeJS.Timeout[] = [];
    const trickle = await serve((_req, res) => {
      res.writeHead(200);
      const timer = setInterval(() => res.write('.'), 20);
      timers.push(timer);
      res.on('close', () => clearInterval(timer));
    });
    try {
      const client = createGuardedHttpClient({ allowHosts: '127.0.0.1', timeoutMs: 400 });
      const error = await failure(client.post(`${trickle.url}/hook`, { body: 'x' }));
      expect(error.code).toBe('TIMEOUT');
    } finally {
      for (const t of timers) clearInterval(t);
    }
  });

  it('reads at most maxResponseBytes of a huge answer and closes the connection', async () => {
    let closedEarly: Promise<boolean> = Promise.resolve(false);
    const huge = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      const chunk = 'x'.repeat(64 * 1024);
      let sent = 0;
      closedEarly = new Promise((resolve) => res.on('close', () => resolve(!res.writableFinished)));
      const pump = () => {
        while (sent < 200 * 1024 * 1024) {
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end();
      };
      pump();
    });
    const client = createGuardedHttpClient({ allowHosts: '127.0.0.1', maxResponseBytes: 10_000 });
    const answer = await client.post(`${huge.url}/hook`, { body: 'x' });
    expect(answer.status).toBe(200);
    expect(answer.truncated).toBe(true);
    expect(answer.bodyExcerpt.length).toBeLessThanOrEqual(2000);
    expect(await closedEarly).toBe(true);
  });

  it('reports a refused connection without the path', async () => {
    const gone = await serve(() => {});
    const url = `${gone.url}/secret-path`;
    await gone.close();
    servers.length = 0;
    const error = await failure(createGuardedHttpClient({ allowHosts: '127.0.0.1' }).post(url, { body: 'x' }));
    expect(error.code).toBe('CONNECTION');
    expect(error.message).toContain('ECONNREFUSED');
    expect(error.message).not.toContain('secret-path');
  });

  it('stops when the caller aborts', async () => {
    const silent = await serve(() => {});
    const controller = new AbortController();
    const pending = createGuardedHttpClient({ allowHosts: '127.0.0.1' }).post(`${silent.url}/hook`, { body: 'x', signal: controller.signal });
    controller.abort();
    expect((await failure(pending)).code).toBe('ABORTED');
  });
});

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveDashboard } from './dashboard.js';
import { parseEnv } from './env.js';

describe('serveDashboard', () => {
  const dir = mkdtempSync(join(tmpdir(), 'stratbox-dashboard-'));
  let server: Server;
  let base: string;

  beforeAll(async () => {
    mkdirSync(join(dir, 'assets'));
    writeFileSync(join(dir, 'index.html'), '<!doctype html><title>Stratbox</title><div id="root"></div>');
    writeFileSync(join(dir, 'assets', 'index-abc123.js'), 'console.log("app")');
    const app = express();
    app.get('/api/strategies', (_req, res) => {
      res.json({ strategies: [] });
    });
    app.use(serveDashboard(dir)!);
    app.use((_req, res) => {
      res.status(404).send('not found');
    });
    await new Promise<void>((resolve) => {
      server = app.listen(0, '127.0.0.1', () => resolve());
    });
    const address = server.address();
    base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  });
  afterAll(() => {
    server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers the page at / and at any page address, never cached', async () => {
    for (const path of ['/', '/strategies', '/backtests/bt_123?x=1']) {
      const res = await fetch(base + path);
      expect(res.status, path).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/text\/html/);
      expect(res.headers.get('cache-control')).toBe('no-cache');
      expect(res.headers.get('content-security-policy')).toMatch(/default-src 'self'/);
      expect(await res.text()).toContain('<div id="root">');
    }
  });

  it('serves hashed assets cached for good, and a missing asset is a 404, not the page', async () => {
    const asset = await fetch(`${base}/assets/index-abc123.js`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('cache-control')).toMatch(/max-age=31536000, immutable/);
    expect(await asset.text()).toContain('console.log');
    expect((await fetch(`${base}/assets/gone.js`)).status).toBe(404);
  });

  it('leaves the API, /ws, health checks and non-GET requests to the service', async () => {
    expect(await (await fetch(`${base}/api/strategies`)).json()).toEqual({ strategies: [] });
    for (const path of ['/api/nope', '/ws', '/healthz']) expect((await fetch(base + path)).status, path).toBe(404);
    expect((await fetch(`${base}/strategies`, { method: 'POST' })).status).toBe(404);
  });

  it('serves nothing from a directory without index.html', () => {
    expect(serveDashboard(join(dir, 'assets'))).toBeNull();
  });

  it('reads STRATBOX_DASHBOARD_DIR: a directory, off, or unset for the default', () => {
    expect(parseEnv({ STRATBOX_DASHBOARD_DIR: '/srv/dashboard' }).STRATBOX_DASHBOARD_DIR).toBe('/srv/dashboard');
    expect(parseEnv({ STRATBOX_DASHBOARD_DIR: 'off' }).STRATBOX_DASHBOARD_DIR).toBe(false);
    expect(parseEnv({}).STRATBOX_DASHBOARD_DIR).toBeUndefined();
  });
});

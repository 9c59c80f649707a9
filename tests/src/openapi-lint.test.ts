import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSilentLogger, createStratbox, type Stratbox } from '@stratbox/core';
import { listenLocally, type LocalServer } from '@stratbox/core/testing';
import { createStratboxRouter } from '@stratbox/adapter-express';

/*
 * The OpenAPI document a mounted router serves, linted by the Redocly CLI with its
 * `recommended` rules: no error and no warning. Run on the JSON written to a temp dir.
 */

const redocly = createRequire(import.meta.url).resolve('@redocly/cli/bin/cli.js');

interface LintReport {
  totals: { errors: number; warnings: number };
  problems: Array<{ ruleId: string; message: string; location?: Array<{ pointer?: string }> }>;
}

function lint(file: string): Promise<LintReport> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [redocly, 'lint', file, '--extends=recommended', '--format=json'],
      // no telemetry or update check: the test runs offline
      { env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' }, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        try {
          resolve(JSON.parse(stdout) as LintReport);
        } catch {
          reject(new Error(`redocly lint gave no report (${error?.message ?? 'no error'}): ${stderr}`));
        }
      },
    );
  });
}

describe('the OpenAPI document passes redocly lint (recommended rules)', () => {
  let stratbox: Stratbox;
  let server: LocalServer;
  const dir = mkdtempSync(join(tmpdir(), 'stratbox-openapi-'));

  beforeAll(async () => {
    stratbox = createStratbox({ logger: createSilentLogger() });
    const app = express();
    app.use('/stratbox', createStratboxRouter(stratbox, { rateLimiter: false }));
    server = await listenLocally(createServer(app));
  });
  afterAll(async () => {
    await server.close();
    await stratbox.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('with no error and no warning, as served under a prefix', async () => {
    const response = await fetch(`${server.url}/stratbox/api/openapi.json`);
    expect(response.status).toBe(200);
    const document = (await response.json()) as { servers: unknown; info: { license: unknown }; components: { schemas: object } };
    expect(document.servers).toEqual([{ url: '/stratbox' }]);
    expect(document.info.license).toEqual({ name: 'MIT', identifier: 'MIT' });
    expect(Object.keys(document.components.schemas).length).toBeGreaterThan(20);
    const file = join(dir, 'openapi.json');
    writeFileSync(file, JSON.stringify(document, null, 2));
    const report = await lint(file);
    expect(report.problems.map((p) => `${p.ruleId}: ${p.message} at ${p.location?.[0]?.pointer ?? '?'}`)).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
  }, 120_000);
});

import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readConfig } from './config.js';
import { ENV_VARIABLES, EnvError, envDoc, parseEnv } from './env.js';
import { README_PATH, readmeEnvTable, renderEnvTable } from './env-docs.js';
import { readScaleOutConfig } from './roles.js';

describe('the example server environment', () => {
  it('applies every default when nothing is set, and treats an empty variable as unset', () => {
    for (const env of [{}, Object.fromEntries(ENV_VARIABLES.map((name) => [name, '']))]) {
      const parsed = parseEnv(env);
      expect(readConfig(parsed)).toEqual({
        port: 3000,
        host: '0.0.0.0',
        dataDir: resolve('./.stratbox'),
        databaseUrl: undefined,
        logLevel: 'info',
        trustProxy: undefined,
      });
      expect(readScaleOutConfig(parsed)).toEqual({ role: 'all', redisUrl: undefined, redisPrefix: 'stratbox', workerConcurrency: 2, queueLockMs: 10_000 });
      expect(parsed).toMatchObject({ STRATBOX_CLOCK_SPEED: 1, STRATBOX_EXCHANGE_URLS: null });
      expect([parsed.STRATBOX_RUN_DEPLOYMENTS, parsed.STRATBOX_MASTER_KEY, parsed.STRATBOX_SANDBOX_SIZE, parsed.STRATBOX_RATE_LIMIT]).toEqual([
        undefined,
        undefined,
        undefined,
        undefined,
      ]);
    }
  });

  it('reads each kind of value', () => {
    const parsed = parseEnv({
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'debug',
      STRATBOX_TRUST_PROXY: '2',
      STRATBOX_RUN_DEPLOYMENTS: 'false',
      STRATBOX_DEPLOYMENT_POLL_MS: '100',
      STRATBOX_CLOCK_SPEED: '60',
      STRATBOX_EXCHANGE_URLS: '{"binance":"http://127.0.0.1:9999"}',
      STRATBOX_MASTER_KEY: Buffer.alloc(32, 7).toString('base64'),
      STRATBOX_RATE_LIMIT: '20/s',
    });
    expect(parsed).toMatchObject({
      PORT: 0,
      HOST: '127.0.0.1',
      LOG_LEVEL: 'debug',
      STRATBOX_TRUST_PROXY: 2,
      STRATBOX_RUN_DEPLOYMENTS: false,
      STRATBOX_DEPLOYMENT_POLL_MS: 100,
      STRATBOX_CLOCK_SPEED: 60,
      STRATBOX_EXCHANGE_URLS: { binance: 'http://127.0.0.1:9999' },
      STRATBOX_RATE_LIMIT: { points: 20, durationSeconds: 1 },
    });
    expect(parsed.STRATBOX_MASTER_KEY).toEqual(new Uint8Array(32).fill(7));
    expect(parseEnv({ STRATBOX_TRUST_PROXY: 'true' }).STRATBOX_TRUST_PROXY).toBe(true);
    expect(parseEnv({ STRATBOX_TRUST_PROXY: 'loopback, 10.0.0.0/8' }).STRATBOX_TRUST_PROXY).toBe('loopback, 10.0.0.0/8');
  });

  it('refuses wrong values with one error naming every wrong variable, what it must be and what it was', () => {
    let error: unknown;
    try {
      parseEnv({
        PORT: '70000',
        LOG_LEVEL: 'loud',
        STRATBOX_ROLE: 'boss',
        STRATBOX_MASTER_KEY: 'c2hvcnQ=',
        STRATBOX_RATE_LIMIT_IP: 'lots',
        STRATBOX_RUN_DEPLOYMENTS: 'yes',
        STRATBOX_EXCHANGE_URLS: '{binance',
        DATABASE_URL: 'not a url',
        STRATBOX_WORKER_CONCURRENCY: '0',
      });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(EnvError);
    expect((error as EnvError).problems).toEqual([
      'PORT must be a port number (0 to 65535), got 70000',
      'DATABASE_URL must be a URL such as postgres://user@host:5432/db, got not a url',
      'LOG_LEVEL must be debug, info, warn or error, got loud',
      'STRATBOX_MASTER_KEY must be 32 bytes, base64-encoded, got c2hvcnQ=',
      'STRATBOX_RATE_LIMIT_IP must look like 1200/60s, 1200/1m, 20/s or 5000/1h, got lots',
      'STRATBOX_ROLE must be api, worker or all, got boss',
      'STRATBOX_WORKER_CONCURRENCY must be an integer of at least 1, got 0',
      'STRATBOX_RUN_DEPLOYMENTS must be true or false, got yes',
      'STRATBOX_EXCHANGE_URLS must be JSON mapping ccxt exchange ids to base URLs, such as {"binance":"http://127.0.0.1:8080"}, got {binance',
    ]);
    expect((error as Error).message).toMatch(/^Invalid environment: PORT must be a port number/);
  });

  it('keeps the role rule: api and worker need REDIS_URL', () => {
    expect(() => readScaleOutConfig(parseEnv({ STRATBOX_ROLE: 'worker' }))).toThrow(/STRATBOX_ROLE=worker needs REDIS_URL/);
    expect(readScaleOutConfig(parseEnv({ STRATBOX_ROLE: 'api', REDIS_URL: 'redis://127.0.0.1:6379' })).role).toBe('api');
  });

  it('describes every variable', () => {
    for (const name of ENV_VARIABLES) expect(envDoc(name).description, name).toMatch(/\S{3}/);
  });

  it('has every variable in the README, in the table generated from the schema', () => {
    const readme = readFileSync(README_PATH, 'utf8');
    const table = readmeEnvTable(readme);
    expect(table, 'README.md has no env-table markers').not.toBeNull();
    const missing = ENV_VARIABLES.filter((name) => !table!.includes(`| \`${name}\` |`));
    expect(missing, 'variables of env.ts missing from the README: run `npx -y pnpm@10 --filter @stratbox/example-server env:docs`').toEqual([]);
    expect(table, 'the README table differs from env.ts: run `npx -y pnpm@10 --filter @stratbox/example-server env:docs`').toBe(renderEnvTable());
  });
});

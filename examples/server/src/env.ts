import { z } from 'zod';
import { resolveRateLimits, type RateLimit } from '@stratbox/core';

/*
 * Every environment variable of the example server and its `stratbox` command, in one zod
 * schema: parsed once when the process starts (`parseEnv`), with an error naming each variable
 * that is wrong; the readers (config.ts, roles.ts, backtest-config.ts, deployment-config.ts,
 * rate-limit-config.ts, master-key.ts) take the parsed values. An unset or empty variable takes
 * its default. The README's table of variables is generated from this schema
 * (`pnpm --filter @stratbox/example-server env:docs`), and a test fails when they differ.
 */

/** What the README says about a variable: its description and, when it has one, its default. */
export type EnvDoc = {
  description: string;
  /** The default as the README shows it (markdown). */
  defaultText?: string;
};

const doc = (description: string, defaultText?: string): EnvDoc => (defaultText === undefined ? { description } : { description, defaultText });

/** A string variable: unset or empty is `undefined`. */
const text = () =>
  z
    .string()
    .optional()
    .transform((raw) => (raw === undefined || raw === '' ? undefined : raw));

/** An integer variable of at least `min` (at most `max`); unset or empty is `undefined`. */
const int = (min: number, max?: number, message = max === undefined ? `must be an integer of at least ${min}` : `must be an integer from ${min} to ${max}`) =>
  text().transform((raw, ctx) => {
    if (raw === undefined) return undefined;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < min || (max !== undefined && value > max)) {
      ctx.addIssue({ code: 'custom', message });
      return z.NEVER;
    }
    return value;
  });

/** A number above 0 (fractions allowed); unset or empty is `undefined`. */
const positive = () =>
  text().transform((raw, ctx) => {
    if (raw === undefined) return undefined;
    const value = Number(raw);
    if (!Number.isFinite(value) || value <= 0) {
      ctx.addIssue({ code: 'custom', message: 'must be a number above 0' });
      return z.NEVER;
    }
    return value;
  });

/** One of `values`; unset or empty is `undefined`. */
const oneOf = <const T extends string>(values: readonly T[]) =>
  text().transform((raw, ctx) => {
    if (raw === undefined) return undefined;
    if (!(values as readonly string[]).includes(raw)) {
      ctx.addIssue({ code: 'custom', message: `must be ${values.slice(0, -1).join(', ')} or ${values.at(-1)}` });
      return z.NEVER;
    }
    return raw as T;
  });

/** A URL (`example` shows one in the error); unset or empty is `undefined`. */
const url = (example: string) =>
  text().transform((raw, ctx) => {
    if (raw === undefined) return undefined;
    if (!URL.canParse(raw)) {
      ctx.addIssue({ code: 'custom', message: `must be a URL such as ${example}` });
      return z.NEVER;
    }
    return raw;
  });

/** `<requests>/<window>` as parseRateLimit reads it, or `off` when `allowOff`. */
const rateLimit = (name: string, allowOff: boolean) =>
  text().transform((raw, ctx): RateLimit | 'off' | undefined => {
    if (raw === undefined) return undefined;
    if (allowOff && raw.trim() === 'off') return 'off';
    try {
      return parseRateLimit(name, raw);
    } catch (error) {
      ctx.addIssue({ code: 'custom', message: (error as Error).message });
      return z.NEVER;
    }
  });

/** Express's `trust proxy`: `true`/`false`, a hop count, or addresses and subnets. */
const trustProxy = () =>
  text().transform((raw) => (raw === undefined ? undefined : raw === 'true' || raw === 'false' ? raw === 'true' : /^\d+$/.test(raw) ? Number(raw) : raw));

/** 32 bytes, base64: decoded. */
const masterKey = () =>
  text().transform((raw, ctx) => {
    if (raw === undefined) return undefined;
    const key = Buffer.from(raw.trim(), 'base64');
    if (key.length !== 32) {
      ctx.addIssue({ code: 'custom', message: 'must be 32 bytes, base64-encoded' });
      return z.NEVER;
    }
    return new Uint8Array(key);
  });

/** JSON `{ "<ccxt exchange id>": "http://host:port" }`. */
const exchangeUrls = () =>
  text().transform((raw, ctx) => {
    if (raw === undefined) return null;
    const message = 'must be JSON mapping ccxt exchange ids to base URLs, such as {"binance":"http://127.0.0.1:8080"}';
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      ctx.addIssue({ code: 'custom', message });
      return z.NEVER;
    }
    const parsed = z.record(z.string(), z.string()).safeParse(value);
    if (!parsed.success) {
      ctx.addIssue({ code: 'custom', message });
      return z.NEVER;
    }
    return parsed.data;
  });

const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600 };

/** `1200/60s`, `1200/1m`, `20/s`, `5000/1h` or `1200/60` (seconds): requests per window; an error naming `name` otherwise. */
export function parseRateLimit(name: string, raw: string): RateLimit {
  const match = /^\s*(\d+)\s*\/\s*(\d+)?\s*([smh])?\s*$/.exec(raw);
  if (!match || (!match[2] && !match[3])) throw new Error(`${name} must look like 1200/60s, 1200/1m, 20/s or 5000/1h, got ${raw}`);
  const points = Number(match[1]);
  const durationSeconds = Number(match[2] ?? 1) * UNIT_SECONDS[match[3] ?? 's']!;
  try {
    resolveRateLimits({ user: { points, durationSeconds } });
  } catch {
    throw new Error(`${name} needs at least 1 request per window of at least 1 second, got ${raw}`);
  }
  return { points, durationSeconds };
}

const withDefault = <T>(value: T | undefined, fallback: T): T => value ?? fallback;

export const envSchema = z.object({
  // The server
  PORT: int(0, 65535, 'must be a port number (0 to 65535)')
    .transform((v) => withDefault(v, 3000))
    .meta(doc('TCP port of the HTTP API and of WebSocket `/ws` (`0`: any free port, logged at start).', '`3000`')),
  HOST: text()
    .transform((v) => withDefault(v, '0.0.0.0'))
    .meta(doc('Address the server listens on (`127.0.0.1`: this machine only; `::` for IPv6).', '`0.0.0.0`')),
  DATA_DIR: text()
    .transform((v) => withDefault(v, './.stratbox'))
    .meta(
      doc(
        'Directory of the SQLite file and `master.key`, relative to the working directory. Created with mode 0700 and its files ' +
          "(SQLite's `-wal` and `-shm` included) 0600, as they hold every seller's source; a looser mode left from before is " +
          'tightened at start with a `warn` log line naming the path.',
        '`examples/server/.stratbox` (through `pnpm start` and `pnpm cli`)',
      ),
    ),
  DATABASE_URL: url('postgres://user@host:5432/db').meta(
    doc(
      'PostgreSQL instead of SQLite, e.g. `postgres://user@host:5432/db`; add `?schema=name` to use a schema. Migrations run at start.',
      'unset: SQLite in `DATA_DIR`',
    ),
  ),
  LOG_LEVEL: oneOf(['debug', 'info', 'warn', 'error'] as const)
    .transform((v) => withDefault(v, 'info'))
    .meta(doc('Lowest level logged (`debug`, `info`, `warn` or `error`); one JSON line per entry, one per request.', '`info`')),
  STRATBOX_MASTER_KEY: masterKey().meta(
    doc(
      'The key that wraps exchange credentials: 32 bytes, base64 (`openssl rand -base64 32`). Keep it out of database backups.',
      '`DATA_DIR/master.key`, created once with mode 0600',
    ),
  ),
  STRATBOX_TRUST_PROXY: trustProxy().meta(
    doc(
      "Express's `trust proxy`: `true`, a hop count or addresses/subnets, so that behind a load balancer the client address comes from `X-Forwarded-For`.",
      'off',
    ),
  ),
  STRATBOX_DASHBOARD_DIR: text()
    .transform((raw) => (raw === 'off' ? false : raw))
    .meta(
      doc(
        'The built web dashboard served at `/` (its `index.html` for every page address): a Vite `dist` directory, relative to the working directory; `off` serves none. `pnpm start` builds it first.',
        '`examples/dashboard/dist`, when built',
      ),
    ),
  STRATBOX_RATE_LIMIT: rateLimit('STRATBOX_RATE_LIMIT', true).meta(
    doc(
      "Requests per user (all of a user's keys together), as `<requests>/<window>`: `1200/1m`, `1200/60s`, `20/s`, `5000/1h`; `off` turns rate limiting off.",
      '`1200/1m`',
    ),
  ),
  STRATBOX_RATE_LIMIT_IP: rateLimit('STRATBOX_RATE_LIMIT_IP', false).meta(
    doc(
      'Requests per client address without valid credentials (a missing or wrong key, the billing webhook, unknown routes), as `<requests>/<window>`.',
      '`300/1m`',
    ),
  ),

  // Scaling out
  STRATBOX_ROLE: oneOf(['api', 'worker', 'all'] as const)
    .transform((v) => withDefault(v, 'all'))
    .meta(
      doc(
        'What this process does: `api` (HTTP and WebSocket, runs no jobs), `worker` (runs backtests and deployments, serves nothing) or `all`. `api` and `worker` need `REDIS_URL`.',
        '`all`',
      ),
    ),
  REDIS_URL: url('redis://host:6379').meta(
    doc('Redis for the shared job queue (BullMQ), event bus and rate-limit counts, so that several processes make one service.', 'unset: all in this process'),
  ),
  STRATBOX_REDIS_PREFIX: text()
    .transform((v) => withDefault(v, 'stratbox'))
    .meta(
      doc('Prefix of every Redis key and channel: the nodes of one service share it, several services can share one Redis with different ones.', '`stratbox`'),
    ),
  STRATBOX_WORKER_CONCURRENCY: int(1)
    .transform((v) => withDefault(v, 2))
    .meta(doc('Backtests one worker process (role `worker` or `all`) takes from the queue at once.', '`2`')),
  STRATBOX_QUEUE_LOCK_MS: int(500)
    .transform((v) => withDefault(v, 10_000))
    .meta(doc("How long a worker's hold on a job lasts without renewal: a dead worker's jobs go to another worker after it (at least 500).", '`10000`')),

  // Backtests (each unset one keeps core's default)
  STRATBOX_BACKTEST_CPU_MS: int(100).meta(
    doc(
      'CPU time one backtest may use before it fails with `TIMEOUT` (at least 100); the host stops it 15 s of wall-clock time later whatever happens, so an endless loop ends within 45 s by default.',
      '`30000`',
    ),
  ),
  STRATBOX_SANDBOX_SIZE: int(1).meta(
    doc(
      "Sandbox processes running backtests; strategy checks on save have one more of their own, so a save never waits behind a backtest. At least 2 by default, so that one user's runs leave a child free for another user's (docs/engine.md, 'What the default pool costs'); `1` gives that up.",
      'cores - 1, at least 2',
    ),
  ),
  STRATBOX_BACKTESTS_PER_USER: int(1).meta(
    doc("Backtests one user runs at once per process: users take turns, so one user's queue delays another's backtest by at most one run.", '`1`'),
  ),
  STRATBOX_MAX_BACKTEST_TRADES: int(0).meta(doc('Trades a backtest stores (its metrics cover every trade it made).', '`10000`')),

  // Live deployments
  STRATBOX_RUN_DEPLOYMENTS: oneOf(['true', 'false'] as const)
    .transform((v) => (v === undefined ? undefined : v === 'true'))
    .meta(doc('`true` or `false`: whether this process runs live deployments (an `api` process never does).', '`true`, except for role `api`')),
  STRATBOX_DEPLOYMENT_POLL_MS: positive().meta(doc('How often running deployments poll their exchange, in ms.', '`5000`')),
  STRATBOX_DEPLOYMENT_LEASE_MS: int(300).meta(
    doc(
      "How long a process's lease on a deployment lasts without renewal: a dead process's deployments move to another within about this plus the scan interval (at least 300).",
      '`15000`',
    ),
  ),
  STRATBOX_DEPLOYMENT_SCAN_MS: int(50).meta(
    doc('How often a process looks for deployments to run: new ones an `api` process created, and those whose lease expired (at least 50).', '`10000`'),
  ),
  STRATBOX_DEPLOYMENT_RESUME_CONCURRENCY: int(1).meta(
    doc('Deployments started at once when the process starts (and at each scan); each forks a sandbox process.', '`4`'),
  ),

  // Notifications (docs/notifications.md)
  STRATBOX_NOTIFY_ALLOW_HOSTS: text().meta(
    doc(
      'Comma-separated hosts or CIDRs (`127.0.0.1,hooks.internal,10.0.0.0/8`) that notification channels may reach although they are private, loopback or link-local, and over plain HTTP. Every other private address is refused, after DNS and again at send time.',
      'none',
    ),
  ),
  STRATBOX_NOTIFY_TIMEOUT_MS: int(100, 60_000).meta(
    doc('Timeout of one notification attempt, in ms (a node that dies mid-send leaves its delivery to another node after twice this plus 5 s).', '`10000`'),
  ),
  STRATBOX_NOTIFY_RETRY_MS: int(100, 3_600_000).meta(
    doc(
      'Delay before the first retry of a failed notification delivery, in ms; each later retry waits twice as long (±20 % jitter, at most 1 h), for a day.',
      '`30000`',
    ),
  ),
  STRATBOX_TELEGRAM_API_BASE: url('https://api.telegram.org').meta(
    doc('The Telegram Bot API that Telegram channels send through.', '`https://api.telegram.org`'),
  ),
  STRATBOX_DISCORD_WEBHOOK_BASE: url('https://discord.com/api/webhooks/').meta(
    doc("What a Discord channel's webhook URL must start with.", '`https://discord.com/api/webhooks/`'),
  ),

  // Exchanges and clock: tests and demos only
  STRATBOX_EXCHANGE_URLS: exchangeUrls().meta(
    doc(
      'JSON `{ "<ccxt exchange id>": "http://host:port" }` moving every API base URL of that exchange to another host (an emulator, a recording proxy, a test double), for the server and `stratbox download`. Never in production.',
      'unset',
    ),
  ),
  STRATBOX_CLOCK_SPEED: positive()
    .transform((v) => withDefault(v, 1))
    .meta(
      doc(
        'Demos and tests: above 1, the service clock runs this many times faster than real time from `STRATBOX_CLOCK_ORIGIN` on, so `1m` strategies trade every few seconds. Never in production.',
        '`1`',
      ),
    ),
  STRATBOX_CLOCK_ORIGIN: int(0).meta(doc('Demos and tests: epoch ms from which a fast clock (`STRATBOX_CLOCK_SPEED`) runs.', 'the start time')),

  // The `stratbox backtest` command (read by its option parser)
  STRATBOX_URL: url('http://localhost:3000').meta(doc('`stratbox backtest`: the running service, when `--url` is not given.')),
  STRATBOX_API_KEY: text().meta(doc('`stratbox backtest`: an API key of the user, when `--api-key` is not given.')),
});

/** The parsed environment: every variable with its default applied. */
export type ServerEnv = z.output<typeof envSchema>;

/** The variables' names, in the schema's order. */
export const ENV_VARIABLES = Object.keys(envSchema.shape) as Array<keyof ServerEnv>;

/** The README's description and default of a variable. */
export function envDoc(name: keyof ServerEnv): EnvDoc {
  return envSchema.shape[name].meta() as unknown as EnvDoc;
}

/** Thrown by `parseEnv`: one problem per wrong variable, each naming it. */
export class EnvError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid environment: ${problems.join('; ')}`);
    this.name = 'EnvError';
  }
}

/**
 * Parses the environment (default `process.env`) against `envSchema`; throws an `EnvError`
 * naming every variable that is wrong, what it must be and what it was. Other variables are ignored.
 */
export function parseEnv(env: Record<string, string | undefined> = process.env): ServerEnv {
  const result = envSchema.safeParse(env);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => {
    const name = String(issue.path[0]);
    // parseRateLimit's messages already name the variable and the value
    return issue.message.startsWith(`${name} `) ? issue.message : `${name} ${issue.message}, got ${env[name]}`;
  });
  throw new EnvError(problems);
}

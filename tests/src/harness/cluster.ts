import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import { Redis } from 'ioredis';
import pg from 'pg';
import { spawnExampleServer } from './server-process.js';

export const DATABASE_URL = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
export const REDIS_URL = process.env.REDIS_URL || 'redis://127.0.0.1:6379';

function tcpOpen(url: string, defaultPort: number): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(port || defaultPort), hostname || '127.0.0.1', () => {
      socket.end();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
    socket.setTimeout(1500, () => {
      socket.destroy();
      resolve(false);
    });
  });
}

/**
 * Whether PostgreSQL and Redis answer. In CI (`CI` set) a missing one is an error, never a
 * skip; elsewhere the tests are skipped with a printed notice.
 */
export async function requirePostgresAndRedis(what: string): Promise<boolean> {
  const [postgres, redis] = await Promise.all([tcpOpen(DATABASE_URL, 5432), tcpOpen(REDIS_URL, 6379)]);
  if (postgres && redis) return true;
  const missing = [!postgres && `PostgreSQL (${new URL(DATABASE_URL).host})`, !redis && `Redis (${new URL(REDIS_URL).host})`].filter(Boolean).join(' and ');
  if (process.env.CI) throw new Error(`${what}: ${missing} not reachable, and CI is set: these tests must run`);
  console.warn(`[${what}] ${missing} not reachable: skipping (set DATABASE_URL / REDIS_URL or start the servers)`);
  return false;
}

/** A PostgreSQL schema and a Redis prefix of their own, and the env that points a node at them. */
export function isolatedBackends(name: string) {
  const suffix = `${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
  const schema = `stratbox_${name}_${suffix}`;
  const prefix = `stratbox-test:${name}:${suffix}`;
  const url = new URL(DATABASE_URL);
  url.searchParams.set('schema', schema);
  return {
    schema,
    prefix,
    env: { DATABASE_URL: url.toString(), REDIS_URL, STRATBOX_REDIS_PREFIX: prefix } as Record<string, string>,
    /** Drops the schema and deletes the Redis keys. */
    async remove(): Promise<void> {
      const client = new pg.Client({ connectionString: DATABASE_URL });
      await client.connect();
      try {
        await client.query(`drop schema if exists "${schema.replace(/"/g, '""')}" cascade`);
      } finally {
        await client.end();
      }
      const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
      try {
        let cursor = '0';
        do {
          const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 500);
          cursor = next;
          if (keys.length > 0) await redis.del(...keys);
        } while (cursor !== '0');
      } finally {
        redis.disconnect();
      }
    },
  };
}

export interface NodeProcess {
  child: ChildProcess;
  pid: number;
  /** Every line printed on stdout so far. */
  lines: string[];
  /** The stdout lines that are JSON log entries with this `msg`. */
  logs(msg: string): Array<Record<string, unknown>>;
  stderr: () => string;
  /** Sends a signal and resolves with the exit code (null when killed by a signal). */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/**
 * Starts one process of the example server (`pnpm start`) with extra env, and resolves once it
 * logged `ready` (`listening` for api/all, `worker ready` for a worker).
 */
export async function startNode(env: Record<string, string>, ready: 'listening' | 'worker ready'): Promise<NodeProcess & { port?: number; baseUrl?: string }> {
  const node = await spawnExampleServer(env, ready, 60_000);
  const port = typeof node.ready.port === 'number' ? node.ready.port : undefined;
  return {
    child: node.child,
    pid: node.child.pid!,
    lines: node.lines,
    ...(port ? { port, baseUrl: `http://127.0.0.1:${port}` } : {}),
    logs(msg) {
      return node.lines.flatMap((line) => {
        try {
          const parsed = JSON.parse(line) as Record<string, unknown>;
          return parsed.msg === msg ? [parsed] : [];
        } catch {
          return [];
        }
      });
    },
    stderr: node.stderr,
    stop: node.stop,
  };
}

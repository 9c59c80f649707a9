/**
 * Scale-out benchmark: backtests completed per second with 1 and with 2 worker processes of the
 * example server (STRATBOX_ROLE=worker, BullMQ on Redis, PostgreSQL), fed by one API process,
 * measured in one run on the same machine, and their ratio. Each worker runs one backtest at a
 * time (BENCH_WORKER_CONCURRENCY), so on a 2-core machine a ratio near 2 means the queue adds
 * no bottleneck.
 *
 *   npx -y pnpm@10 --filter @stratbox/bench queue
 *   DATABASE_URL, REDIS_URL (defaults: 127.0.0.1), BENCH_BACKTESTS=30, BENCH_WORKER_CONCURRENCY=1,
 *   BENCH_ROUNDS=2 (alternating 1 and 2 workers; the best of each is kept).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import pg from 'pg';
import { createStratboxClient } from '@stratbox/client';

const DATABASE_URL = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
const REDIS_URL = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
const BACKTESTS = Number(process.env.BENCH_BACKTESTS ?? 30);
const CONCURRENCY = process.env.BENCH_WORKER_CONCURRENCY ?? '1';
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const SERVER_DIR = fileURLToPath(new URL('../examples/server', import.meta.url));
const NODE_ARGS = ['--conditions=@stratbox/source', '--import', 'tsx'];
const SOURCE = 'export function onCandle(ctx, c) { let x = 0; for (let i = 0; i < 200; i++) x += i; }';
const BODY = { symbols: ['BTC/USDT:USDT'], startDate: '2024-01-01', endDate: '2024-01-14', timeframe: '1m' as const };

function run(args: string[], env: Record<string, string>, ready?: string): Promise<{ child: ChildProcess; line: Record<string, unknown>; out: string }> {
  const child = spawn(process.execPath, [...NODE_ARGS, ...args], { cwd: SERVER_DIR, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stderr!.on('data', (c: Buffer) => (err += c.toString()));
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      if (!ready) return;
      for (const line of out.split('\n')) {
        try {
          const parsed = JSON.parse(line) as Record<string, unknown>;
          if (parsed.msg === ready) return resolve({ child, line: parsed, out });
        } catch {
          // partial or not JSON
        }
      }
    });
    child.once('exit', (code) => (ready ? reject(new Error(`${args.join(' ')} exited ${code}: ${err}`)) : resolve({ child, line: {}, out })));
  });
}

async function measure(workerCount: number): Promise<{ perSecond: number; seconds: number }> {
  const suffix = `${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  const schema = `stratbox_bench_${suffix}`;
  const prefix = `stratbox-bench:${suffix}`;
  const url = new URL(DATABASE_URL);
  url.searchParams.set('schema', schema);
  const env = {
    DATABASE_URL: url.toString(),
    REDIS_URL,
    STRATBOX_REDIS_PREFIX: prefix,
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    STRATBOX_WORKER_CONCURRENCY: CONCURRENCY,
  };
  const children: ChildProcess[] = [];
  try {
    const { out } = await run(['src/cli.ts', 'create-user', 'bench'], env);
    const { apiKey } = JSON.parse(out.trim()) as { apiKey: string };
    const apiNode = await run(['src/main.ts'], { ...env, LOG_LEVEL: 'info', STRATBOX_ROLE: 'api' }, 'listening');
    children.push(apiNode.child);
    const workers = await Promise.all(
      Array.from({ length: workerCount }, () => run(['src/main.ts'], { ...env, LOG_LEVEL: 'info', STRATBOX_ROLE: 'worker' }, 'worker ready')),
    );
    children.push(...workers.map((w) => w.child));
    const client = createStratboxClient({ baseUrl: `http://127.0.0.1:${apiNode.line.port as number}`, apiKey });
    const strategyId = (await client.strategies.create({ body: { name: 'bench', source: SOURCE } })).id;
    const waitDone = async (ids: string[]) => {
      for (const id of ids) {
        for (;;) {
          const r = await client.backtests.get({ params: { id } });
          if (r.status === 'completed') break;
          if (r.status !== 'queued' && r.status !== 'running') throw new Error(`backtest ${id} ended ${r.status}: ${JSON.stringify(r.error)}`);
          await new Promise((res) => setTimeout(res, 20));
        }
      }
    };
    // warm-up: one run per worker (sandbox processes, candle cache)
    const warm = await Promise.all(Array.from({ length: workerCount }, () => client.backtests.create({ body: { strategyId, ...BODY } })));
    await waitDone(warm.map((w) => w.id));
    const started = performance.now();
    const ids: string[] = [];
    for (let i = 0; i < BACKTESTS; i++) ids.push((await client.backtests.create({ body: { strategyId, ...BODY } })).id);
    await waitDone(ids);
    const seconds = (performance.now() - started) / 1000;
    return { perSecond: BACKTESTS / seconds, seconds };
  } finally {
    for (const child of children) child.kill('SIGKILL');
    const db = new pg.Client({ connectionString: DATABASE_URL });
    await db.connect();
    await db.query(`drop schema if exists "${schema}" cascade`).finally(() => db.end());
    const redis = new Redis(REDIS_URL);
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 500);
      cursor = next;
      if (keys.length) await redis.del(...keys);
    } while (cursor !== '0');
    redis.disconnect();
  }
}

async function main() {
  console.log(
    `queue bench: ${BACKTESTS} backtests (${BODY.timeframe}, ${BODY.startDate}..${BODY.endDate}), worker concurrency ${CONCURRENCY}, ${availableParallelism()} cores`,
  );
  // rounds alternate 1 and 2 workers and keep the best of each, so a burst of other load on the
  // machine hurts both sides alike
  const best = { 1: { perSecond: 0, seconds: 0 }, 2: { perSecond: 0, seconds: 0 } };
  for (let round = 0; round < ROUNDS; round++) {
    for (const n of round % 2 === 0 ? ([1, 2] as const) : ([2, 1] as const)) {
      const result = await measure(n);
      console.log(`  round ${round + 1}, ${n} worker process${n > 1 ? 'es' : ''}: ${result.perSecond.toFixed(2)} backtests/s (${result.seconds.toFixed(1)} s)`);
      if (result.perSecond > best[n].perSecond) best[n] = result;
    }
  }
  const [one, two] = [best[1], best[2]];
  console.log(`1 worker process : ${one.perSecond.toFixed(2)} backtests/s`);
  console.log(`2 worker processes: ${two.perSecond.toFixed(2)} backtests/s`);
  console.log(`ratio 2/1: ${(two.perSecond / one.perSecond).toFixed(2)} (2 means the queue adds no bottleneck on 2 cores)`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});

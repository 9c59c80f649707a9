import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NODE_ARGS, SERVER_DIR, STRATBOX_BIN } from './paths.js';

export interface ServerProcess {
  baseUrl: string;
  port: number;
  child: ChildProcess;
  /** Every line the server printed on stdout. */
  lines: string[];
  stderr: () => string;
  /** Sends a signal and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/**
 * Settings the test process may have (CI sets DATABASE_URL and REDIS_URL for the tests that
 * use them) that must not leak into a server started for a test that does not ask for them:
 * such a server runs on SQLite in its own DATA_DIR, in process.
 */
const ISOLATED_ENV = { DATABASE_URL: '', REDIS_URL: '', STRATBOX_ROLE: '', STRATBOX_MASTER_KEY: '' };

/**
 * Rate limits far above what any functional test sends (polling loops make thousands of requests
 * a minute, a whole walk of the API hundreds from one address), so that none meets a 429; the
 * rate-limit tests set their own.
 */
export const TEST_RATE_LIMIT_ENV = { STRATBOX_RATE_LIMIT: '1000000/60s', STRATBOX_RATE_LIMIT_IP: '1000000/60s' };

/** A temporary DATA_DIR, removed by the returned function. */
export function tempDataDir(): { dir: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'stratbox-e2e-'));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** An example server process started by `spawnExampleServer`. */
export interface ExampleServerProcess {
  child: ChildProcess;
  /** Every line printed on stdout so far. */
  lines: string[];
  stderr: () => string;
  /** The JSON log entry with `msg === ready` the start waited for. */
  ready: Record<string, unknown>;
  /** Sends a signal and resolves with the exit code (null when killed by a signal). */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/**
 * Starts the example server as its own process, exactly as `pnpm start` does, on a free port,
 * with `env` over this process's, and resolves once it logged a JSON entry with `msg === ready`
 * (and, for `listening`, its port); rejects if it exits first or after `timeoutMs`.
 */
export async function spawnExampleServer(env: Record<string, string>, ready: string, timeoutMs: number): Promise<ExampleServerProcess> {
  const child = spawn(process.execPath, [...NODE_ARGS, 'src/main.ts'], {
    cwd: SERVER_DIR,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', ...TEST_RATE_LIMIT_ENV, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const entry = await new Promise<Record<string, unknown>>((resolve, reject) => {
    let buffer = '';
    const timer = setTimeout(() => reject(new Error(`server did not log ${ready} in time: ${stderr}`)), timeoutMs);
    child.stdout!.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      let index: number;
      while ((index = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, index);
        buffer = buffer.slice(index + 1);
        lines.push(line);
        try {
          const parsed = JSON.parse(line) as Record<string, unknown>;
          if (parsed.msg === ready && (ready !== 'listening' || parsed.port)) {
            clearTimeout(timer);
            resolve(parsed);
          }
        } catch {
          // not JSON: keep it in lines
        }
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code} before ${ready}: ${stderr}`));
    });
  });
  return {
    child,
    lines,
    stderr: () => stderr,
    ready: entry,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      child.kill(signal);
      return exited;
    },
  };
}

/**
 * Starts the example server as its own process, exactly as `pnpm start` does, on a free port,
 * and resolves once it logs that it is listening.
 */
export async function startServerProcess(env: Record<string, string>): Promise<ServerProcess> {
  const server = await spawnExampleServer({ ...ISOLATED_ENV, ...env }, 'listening', 30_000);
  const port = server.ready.port as number;
  return { baseUrl: `http://127.0.0.1:${port}`, port, child: server.child, lines: server.lines, stderr: server.stderr, stop: server.stop };
}

/** Runs the example server's `stratbox` bin (what `pnpm cli` runs) with `args` and resolves with its output. */
export function runCli(args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [STRATBOX_BIN, ...args], {
      cwd: SERVER_DIR,
      env: { ...process.env, ...ISOLATED_ENV, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Creates a user with the CLI and returns its id and API key. */
export async function createUserWithCli(name: string, env: Record<string, string>): Promise<{ userId: string; apiKey: string }> {
  const result = await runCli(['create-user', name], env);
  if (result.code !== 0) throw new Error(`create-user failed (${result.code}): ${result.stderr}`);
  return JSON.parse(result.stdout.trim()) as { userId: string; apiKey: string };
}

/**
 * Environment of an example server on `dataDir` whose deployments run fast: one '1m' candle
 * closes every second (one clock origin for every start, so the clock keeps going forward across
 * a restart), deployments poll every 100 ms, and the leases of a killed process expire within
 * 3 s, after which the restarted one (a new owner) takes them at its next scan.
 */
export function fastDeploymentEnv(dataDir: string): Record<string, string> {
  return {
    DATA_DIR: dataDir,
    STRATBOX_DEPLOYMENT_POLL_MS: '100',
    STRATBOX_DEPLOYMENT_LEASE_MS: '3000',
    STRATBOX_DEPLOYMENT_SCAN_MS: '500',
    STRATBOX_CLOCK_SPEED: '60',
    STRATBOX_CLOCK_ORIGIN: String(Date.now()),
  };
}

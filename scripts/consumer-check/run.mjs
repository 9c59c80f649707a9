#!/usr/bin/env node
/**
 * The consumer check: Stratbox as its users get it from npm. Packs every publishable package as
 * it would be published (`pnpm pack`), installs the tarballs with npm into scratch apps in a temp
 * directory outside the workspace, compiles a consumer TypeScript project against them
 * (`strict`, `skipLibCheck: false`), and runs one smoke script per kind of user: a host that
 * embeds core on SQLite, a team that mounts the router in Express 5, a program that calls the
 * running service with the client from a directory holding only the client. It measures what
 * `npm i @stratbox/client` installs (only the client, the contract and zod; under 8 MB) and the
 * gzipped size of a browser bundle of the client (under 120 KB).
 *
 * Run after `pnpm build`: `pnpm consumer-check`. Network: the npm registry only (through the npm
 * cache). `STRATBOX_CONSUMER_KEEP=1` keeps the scratch directory.
 */
import { execFile, execFileSync, spawn } from 'node:child_process';
import { cpSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = join(HERE, '..', '..');
const CLIENT_MAX_INSTALLED = 8 * 1024 * 1024;
const CLIENT_MAX_GZIPPED = 120 * 1024;
/** What `npm i @stratbox/client` may install: nothing server-side. */
const CLIENT_ALLOWED = new Set(['@stratbox/client', '@stratbox/contract', 'zod']);
/** Versions of what the scratch apps take from the registry, as a consumer would. */
const THIRD_PARTY = { express: '^5.1.0', '@types/express': '^5.0.3', '@types/node': '^20.19.0' };

const started = Date.now();
const timings = [];
async function step(name, fn) {
  const t = Date.now();
  process.stdout.write(`consumer-check: ${name}...\n`);
  const result = await fn();
  timings.push([name, Date.now() - t]);
  return result;
}
const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;
const mb = (bytes) => `${(bytes / 1024 / 1024).toFixed(2)} MB`;
const kb = (bytes) => `${(bytes / 1024).toFixed(1)} KB`;
function fail(message) {
  throw new Error(`consumer-check: ${message}`);
}

function run(command, args, options = {}) {
  try {
    return execFileSync(command, args, { stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, ...options });
  } catch (error) {
    const out = `${error.stdout ?? ''}${error.stderr ?? ''}`.trim();
    fail(`${command} ${args.join(' ')} failed in ${options.cwd ?? process.cwd()}:\n${out.slice(-6000)}`);
  }
}

/** `run`, without blocking: steps that do not depend on each other overlap. */
function runAsync(command, args, options = {}) {
  return new Promise((resolve, reject) => {
    execFile(command, args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, ...options }, (error, stdout, stderr) => {
      if (!error) return resolve(stdout);
      const out = `${stdout ?? ''}${stderr ?? ''}`.trim();
      reject(new Error(`consumer-check: ${command} ${args.join(' ')} failed in ${options.cwd ?? process.cwd()}:\n${out.slice(-6000)}`));
    });
  });
}

/** pnpm as this script was started with (`pnpm consumer-check`), else through npx. */
function pnpm(args, options) {
  const execPath = process.env.npm_execpath;
  if (execPath && /pnpm/.test(execPath)) return run(process.execPath, [execPath, ...args], options);
  return run('npx', ['-y', 'pnpm@10', ...args], options);
}

/**
 * npm, from the registry (through the npm cache) and nowhere else: native modules (better-sqlite3)
 * build from source rather than download a prebuilt binary from GitHub.
 */
const NPM_ENV = { ...process.env, npm_config_update_notifier: 'false', npm_config_build_from_source: 'true' };
const npmInstall = (cwd, extra = []) =>
  runAsync('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error', '--install-links', ...extra], { cwd, env: NPM_ENV });

/** Publishable packages: packages/* not marked private. */
function publishable() {
  return readdirSync(join(ROOT, 'packages'))
    .map((dir) => join(ROOT, 'packages', dir))
    .filter((dir) => existsSync(join(dir, 'package.json')))
    .map((dir) => ({ dir, manifest: JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) }))
    .filter(({ manifest }) => !manifest.private);
}

/** Bytes of the files under `dir`, as installed (symlinks not followed). */
function sizeOf(dir) {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) total += sizeOf(path);
    else if (entry.isFile()) total += lstatSync(path).size;
  }
  return total;
}

/** Installed package names under a node_modules directory, nested ones included. */
function installedPackages(nodeModules, found = new Map()) {
  if (!existsSync(nodeModules)) return found;
  for (const entry of readdirSync(nodeModules, { withFileTypes: true })) {
    if (entry.name.startsWith('.')) continue;
    const dirs = entry.name.startsWith('@')
      ? readdirSync(join(nodeModules, entry.name)).map((name) => [`${entry.name}/${name}`, join(nodeModules, entry.name, name)])
      : [[entry.name, join(nodeModules, entry.name)]];
    for (const [name, dir] of dirs) {
      found.set(name, (found.get(name) ?? 0) + sizeOf(dir));
      installedPackages(join(dir, 'node_modules'), found);
    }
  }
  return found;
}

const scratch = mkdtempSync(join(tmpdir(), 'stratbox-consumer-'));
if (relative(ROOT, scratch).split(/[\\/]/)[0] !== '..') fail(`the scratch directory ${scratch} is inside the workspace`);
let server;
try {
  const packages = publishable();
  const tarballDir = join(scratch, 'tarballs');
  mkdirSync(tarballDir);

  const tarballs = await step(`pack ${packages.length} packages`, () => {
    for (const { dir, manifest } of packages) {
      if (!existsSync(join(dir, 'dist'))) fail(`${manifest.name} has no dist/: run pnpm build first`);
    }
    pnpm(['-r', '--filter', './packages/*', 'pack', '--pack-destination', tarballDir], { cwd: ROOT });
    const byName = {};
    for (const { manifest } of packages) {
      const file = join(tarballDir, `${manifest.name.replace(/^@/, '').replace('/', '-')}-${manifest.version}.tgz`);
      if (!existsSync(file)) fail(`no tarball for ${manifest.name} (${file})`);
      const packed = run('tar', ['-xzOf', file, 'package/package.json']);
      if (packed.includes('workspace:')) fail(`${manifest.name}: the packed package.json still has a workspace: range`);
      const listed = run('tar', ['-tzf', file]).split('\n');
      for (const needed of ['package/LICENSE', 'package/README.md']) {
        if (!listed.includes(needed)) fail(`${manifest.name}: the tarball has no ${needed.slice('package/'.length)}`);
      }
      const deps = JSON.parse(packed).dependencies ?? {};
      for (const [name, range] of Object.entries(deps)) {
        if (name.startsWith('@stratbox/') && range !== `^${manifest.version}`) fail(`${manifest.name}: dependency ${name} is "${range}"`);
      }
      byName[manifest.name] = file;
    }
    return byName;
  });
  const tarballSpec = (name) => `file:${tarballs[name]}`;

  // The client alone, as a frontend installs it: `npm i @stratbox/client`. Its @stratbox
  // dependency comes from its tarball (not on the registry yet), everything else from npm.
  const clientApp = join(scratch, 'client-app');
  mkdirSync(clientApp);
  writeFileSync(
    join(clientApp, 'package.json'),
    JSON.stringify(
      {
        name: 'client-consumer',
        private: true,
        type: 'module',
        dependencies: { '@stratbox/client': tarballSpec('@stratbox/client') },
        overrides: { '@stratbox/contract': tarballSpec('@stratbox/contract') },
      },
      null,
      2,
    ),
  );
  // Every package, as a server-side app installs them, with the consumer project of app/.
  const app = join(scratch, 'app');
  cpSync(join(HERE, 'app'), app, { recursive: true, filter: (src) => !/[\\/](dist|node_modules)$/.test(src) });
  const dependencies = Object.fromEntries(Object.keys(tarballs).map((name) => [name, tarballSpec(name)]));
  writeFileSync(
    join(app, 'package.json'),
    JSON.stringify({ name: 'stratbox-consumer', private: true, type: 'module', dependencies: { ...dependencies, ...THIRD_PARTY } }, null, 2),
  );

  // Install scripts (better-sqlite3's native build, the longest part) run apart, beside the compile.
  await Promise.all([
    step('install @stratbox/client alone', () => npmInstall(clientApp)),
    step('install every package into a scratch app', () => npmInstall(app, ['--ignore-scripts'])),
  ]);
  const client = {};
  await Promise.all([
    step('run install scripts (better-sqlite3 builds from source)', () => runAsync('npm', ['rebuild', '--loglevel=error'], { cwd: app, env: NPM_ENV })),
    step('compile the consumer project (strict, skipLibCheck: false)', () => {
      const tsc = createRequire(join(ROOT, 'package.json')).resolve('typescript/bin/tsc');
      return runAsync(process.execPath, [tsc, '-p', join(app, 'tsconfig.json')], { cwd: app });
    }),
    step('measure the client install', () => {
      const installed = installedPackages(join(clientApp, 'node_modules'));
      client.total = [...installed.values()].reduce((a, b) => a + b, 0);
      const list = [...installed]
        .sort((a, b) => b[1] - a[1])
        .map(([name, size]) => `${name} ${mb(size)}`)
        .join(', ');
      console.log(`consumer-check: npm i @stratbox/client installs ${mb(client.total)}: ${list}`);
      const extra = [...installed.keys()].filter((name) => !CLIENT_ALLOWED.has(name));
      if (extra.length) fail(`@stratbox/client installs more than the client, the contract and zod: ${extra.join(', ')}`);
      if (client.total >= CLIENT_MAX_INSTALLED) fail(`@stratbox/client installs ${mb(client.total)}, over ${mb(CLIENT_MAX_INSTALLED)}`);
    }).then(() =>
      step('bundle the installed client for the browser', async () => {
        const { build } = createRequire(join(ROOT, 'tests', 'package.json'))('esbuild');
        writeFileSync(join(clientApp, 'bundle-entry.js'), "export * from '@stratbox/client';\n");
        const result = await build({
          entryPoints: [join(clientApp, 'bundle-entry.js')],
          absWorkingDir: clientApp,
          bundle: true,
          minify: true,
          platform: 'browser',
          format: 'esm',
          write: false,
          metafile: true,
          logLevel: 'silent',
        });
        const serverSide = Object.keys(result.metafile.inputs).filter(
          (input) => !/node_modules\/(@stratbox\/(client|contract)|zod)\/|bundle-entry\.js$/.test(input),
        );
        if (serverSide.length) fail(`the browser bundle of the client holds more than the client, the contract and zod: ${serverSide.join(', ')}`);
        const code = result.outputFiles[0].contents;
        client.gzipped = gzipSync(code, { level: 9 }).length;
        console.log(`consumer-check: browser bundle of @stratbox/client (everything it exports): ${kb(code.length)} minified, ${kb(client.gzipped)} gzipped`);
        if (client.gzipped >= CLIENT_MAX_GZIPPED) fail(`the client's browser bundle is ${kb(client.gzipped)} gzipped, over ${kb(CLIENT_MAX_GZIPPED)}`);
      }),
    ),
  ]);
  await step('embed core on SQLite', () => {
    process.stdout.write(run(process.execPath, [join(app, 'dist', 'embed.js')], { cwd: app, timeout: 120_000 }));
  });
  const mounted = await step(
    'mount the router in an Express 5 app',
    () =>
      new Promise((resolve, reject) => {
        server = spawn(process.execPath, [join(app, 'dist', 'mount.js')], { cwd: app, stdio: ['pipe', 'pipe', 'inherit'] });
        let out = '';
        const timer = setTimeout(() => reject(new Error('consumer-check: the mounted app did not get ready within 60 s')), 60_000);
        server.stdout.on('data', (chunk) => {
          out += chunk;
          const line = out.split('\n').find((l) => l.startsWith('READY '));
          if (line) {
            clearTimeout(timer);
            resolve(JSON.parse(line.slice('READY '.length)));
          }
        });
        server.once('exit', (code) => {
          clearTimeout(timer);
          reject(new Error(`consumer-check: the mounted app exited with ${code}:\n${out}`));
        });
      }),
  );
  console.log(`consumer-check: mount: the router answers at ${mounted.url}`);
  for (const note of mounted.notes) console.log(`consumer-check: NOTE mount: ${note}`);
  await step('call the running service with the client (client-only install)', () => {
    for (const file of ['call.js', 'shared.js']) cpSync(join(app, 'dist', file), join(clientApp, file));
    process.stdout.write(
      run(process.execPath, [join(clientApp, 'call.js')], {
        cwd: clientApp,
        timeout: 120_000,
        env: { ...process.env, STRATBOX_URL: mounted.url, STRATBOX_API_KEY: mounted.apiKey },
      }),
    );
  });
  await step(
    'stop the mounted app',
    () =>
      new Promise((resolve) => {
        server.removeAllListeners('exit');
        server.once('exit', resolve);
        server.stdin.end();
      }),
  );
  server = undefined;

  console.log(`consumer-check: passed in ${seconds(Date.now() - started)} (${timings.map(([name, ms]) => `${name}: ${seconds(ms)}`).join('; ')})`);
  console.log(
    `consumer-check: @stratbox/client installed ${mb(client.total)} (limit ${mb(CLIENT_MAX_INSTALLED)}), browser bundle ${kb(client.gzipped)} gzipped (limit ${kb(CLIENT_MAX_GZIPPED)})`,
  );
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  console.error(`consumer-check: FAILED after ${seconds(Date.now() - started)}; scratch directory ${scratch}`);
  process.exitCode = 1;
} finally {
  server?.kill();
  if (process.exitCode !== 1 && !process.env.STRATBOX_CONSUMER_KEEP) rmSync(scratch, { recursive: true, force: true });
}

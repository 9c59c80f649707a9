import { existsSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { type Browser, chromium } from 'playwright-core';
import { REPO_ROOT } from './paths.js';

/** Chromium from the system's packages (Playwright's own download cannot run here); `CHROMIUM_PATH` overrides it. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

/** How long a page action or wait may take before it fails: a minute, for loaded machines. */
export const BROWSER_TIMEOUT_MS = 60_000;

/** Where browser tests save their screenshots (gitignored). */
export const SCREENSHOT_DIR = resolve(REPO_ROOT, 'tests/.artifacts');

/**
 * Headless Chromium driven by playwright-core. A missing browser fails loudly, naming the
 * install command (`.ci/run` runs it): these tests are never skipped.
 */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(`Chromium is not installed at ${CHROMIUM_PATH}: run \`apt-get update && apt-get install -y chromium\` as root (or set CHROMIUM_PATH)`);
  }
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** The path of a screenshot `name` of `suite`, its folder created. */
export function screenshotPath(suite: string, name: string): string {
  const dir = join(SCREENSHOT_DIR, suite);
  mkdirSync(dir, { recursive: true });
  return join(dir, `${name}.png`);
}

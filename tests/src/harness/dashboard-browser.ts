import type { Browser, Page } from 'playwright-core';
import { BROWSER_TIMEOUT_MS, screenshotPath } from './browser.js';

/** A dashboard tab and the errors it reported, for tests to assert there were none. */
export interface DashboardTab {
  page: Page;
  /** Uncaught page errors and console errors, failed loads aside (the refusals a test provokes log those). */
  errors: string[];
}

/**
 * A new tab at laptop size, in its own browser context (its own sessionStorage: its own
 * session), collecting page and console errors, with a default timeout of BROWSER_TIMEOUT_MS.
 */
export async function openDashboardTab(browser: Browser): Promise<DashboardTab> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) errors.push(message.text());
  });
  page.setDefaultTimeout(BROWSER_TIMEOUT_MS);
  return { page, errors };
}

/** Opens the dashboard at `baseUrl` and signs in with `apiKey`; resolves on the strategies page. */
export async function signIn(page: Page, baseUrl: string, apiKey: string): Promise<void> {
  await page.goto(baseUrl);
  await page.getByLabel('API key').fill(apiKey);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Strategies' }).waitFor();
}

/** A full-page screenshot `name` in tests/.artifacts/<suite>/. */
export function screenshot(page: Page, suite: string, name: string): Promise<Buffer> {
  return page.screenshot({ path: screenshotPath(suite, name), fullPage: true });
}

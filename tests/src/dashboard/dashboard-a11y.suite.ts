import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { StratboxClient } from '@stratbox/client';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROWSER_TIMEOUT_MS, launchChromium } from '../harness/browser.js';
import { ensureDashboardBuilt } from '../harness/dashboard-build.js';
import { seedTwoBacktests } from '../harness/dashboard-seed.js';
import { startWsTestService, type WsTestService } from '../harness/ws-service.js';

/*
 * axe-core in the real browser on every page of the built dashboard: no serious or critical
 * violation. To check a new page, add it to PAGES (its address and what shows it is drawn).
 */

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

interface Seeded {
  strategyId: string;
  backtestIds: [string, string];
}

interface PageCheck {
  name: string;
  path(seeded: Seeded): string;
  /** A CSS selector or heading text that shows the page is drawn with its data. */
  ready: { selector: string } | { heading: string };
}

const PAGES: PageCheck[] = [
  { name: 'strategies list', path: () => '/strategies', ready: { selector: 'table' } },
  { name: 'new strategy (editor)', path: () => '/strategies/new', ready: { selector: '.cm-content' } },
  { name: 'strategy (editor, versions)', path: (s) => `/strategies/${s.strategyId}`, ready: { selector: '.cm-content' } },
  { name: 'backtest form', path: (s) => `/backtests/new?strategyId=${s.strategyId}`, ready: { selector: 'form' } },
  { name: 'backtest results', path: (s) => `/backtests/${s.backtestIds[0]}`, ready: { selector: '[data-testid="candle-chart"] figcaption' } },
  { name: 'backtest list', path: () => '/backtests', ready: { selector: '.compare-pick' } },
  { name: 'compare backtests', path: (s) => `/backtests/compare?a=${s.backtestIds[0]}&b=${s.backtestIds[1]}`, ready: { selector: '.compare-metrics' } },
  { name: 'billing', path: () => '/billing', ready: { selector: '.usage-meters' } },
  { name: 'deployments list', path: () => '/deployments', ready: { heading: 'Deployments' } },
  { name: 'new deployment', path: () => '/deployments/new', ready: { selector: 'form' } },
  { name: 'marketplace', path: () => '/marketplace', ready: { heading: 'Marketplace' } },
  { name: 'my listings', path: () => '/marketplace/mine', ready: { heading: 'My listings' } },
  { name: 'my purchases', path: () => '/marketplace/purchases', ready: { heading: 'My purchases' } },
];

interface Violation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: string[]; failureSummary?: string }>;
}

/** axe-core's serious and critical violations on the page as it is now (run through the debugger protocol, so the page's CSP does not apply). */
async function seriousViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE_SOURCE);
  const violations = (await page.evaluate(() =>
    (window as unknown as { axe: { run(context: Document, options: object): Promise<{ violations: unknown[] }> } }).axe
      .run(document, { resultTypes: ['violations'] })
      .then((r) => r.violations),
  )) as Violation[];
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.impact} ${v.id} (${v.help}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

async function waitReady(page: Page, ready: PageCheck['ready']): Promise<void> {
  if ('selector' in ready) await page.locator(ready.selector).first().waitFor();
  else await page.getByRole('heading', { name: ready.heading, level: 1 }).waitFor();
  // nothing still loading
  await page.waitForFunction(() => document.querySelectorAll('.loading').length === 0);
}

describe('accessibility of every dashboard page (axe-core in Chromium)', () => {
  let service: WsTestService;
  let browser: Browser;
  let page: Page;
  let apiKey: string;
  let client: StratboxClient;
  let seeded: Seeded;

  beforeAll(async () => {
    await ensureDashboardBuilt();
    service = await startWsTestService();
    ({ apiKey, client } = await service.newUser('a11y-user'));
    seeded = await seedTwoBacktests(client);
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.setDefaultTimeout(BROWSER_TIMEOUT_MS);
  }, 300_000);

  afterAll(async () => {
    await browser?.close();
    await service?.close();
  });

  it('sign-in page', async () => {
    await page.goto(service.baseUrl);
    await page.getByLabel('API key').waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await page.getByLabel('API key').fill(apiKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Strategies', level: 1 }).waitFor();
  });

  for (const check of PAGES) {
    it(check.name, async () => {
      await page.goto(service.baseUrl + check.path(seeded));
      await waitReady(page, check.ready);
      expect(await seriousViolations(page), check.name).toEqual([]);
    }, 60_000);
  }
});

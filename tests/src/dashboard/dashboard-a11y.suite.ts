import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { StratboxClient } from '@stratbox/client';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acceleratedClock } from '../harness/accelerated-clock.js';
import { BROWSER_TIMEOUT_MS, launchChromium } from '../harness/browser.js';
import { type DashboardTab, openDashboardTab, signIn } from '../harness/dashboard-browser.js';
import { ensureDashboardBuilt } from '../harness/dashboard-build.js';
import { waitFor } from '../harness/deferred.js';
import { SMA_CROSS, seedListing, seedOptimization, seedPaperDeployment, seedReviewedListing, seedTwoBacktests } from '../harness/dashboard-seed.js';
import { seedHaltedDeployment } from '../harness/dashboard-seed-risk.js';
import { startWsTestService, type WsTestService } from '../harness/ws-service.js';

/*
 * axe-core in the real browser on every page of the built dashboard: no serious or critical
 * violation. To check a new page, add it to PAGES (its address, what shows it is drawn, and
 * what it hides until asked: a form, a dialog). The user has records on every list: two
 * backtests, a completed optimization, a running paper deployment with orders, a halted one with
 * every risk limit set, a listing of
 * theirs the other user bought and reviewed, and one of the other user's they bought and
 * reviewed (a third they did not buy, a fourth claiming "+300 %" with its record ready).
 * The other user has strategies but no exchange account yet. The clock runs 60 times faster so
 * the deployment's '1m' candles close every second.
 */

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

interface Seeded {
  strategyId: string;
  backtestIds: [string, string];
  /** A completed 2 × 2 grid optimization of the strategy, with 2 walk-forward folds. */
  optimizationId: string;
  deploymentId: string;
  /** A paper deployment with every risk limit set, halted by one (its halt, pre-flight and reconciliation shown). */
  haltedDeploymentId: string;
  /** The user's own listing, with a review by its buyer. */
  ownListingId: string;
  /** The other user's listing the user bought and reviewed. */
  boughtListingId: string;
  /** The other user's listing the user has not bought. */
  unboughtListingId: string;
  /** The other user's listing whose description claims "+300 % in backtests!", checked against its verified record. */
  claimedListingId: string;
}

interface PageCheck {
  name: string;
  path(seeded: Seeded): string;
  /** CSS selectors (each must match) or a heading's text that show the page is drawn with its data. */
  ready: { selector: string | string[] } | { heading: string };
  /** Who is signed in: the seeded user unless `other`. */
  user?: 'other';
  /** Opens what the page shows only when asked (a form, a dialog): checked too, after the page as it first shows. */
  reveal?(page: Page): Promise<unknown>;
}

const PAGES: PageCheck[] = [
  { name: 'strategies list', path: () => '/strategies', ready: { selector: 'table' } },
  { name: 'new strategy (editor)', path: () => '/strategies/new', ready: { selector: '.cm-content' } },
  { name: 'strategy (editor, versions)', path: (s) => `/strategies/${s.strategyId}`, ready: { selector: '.cm-content' } },
  { name: 'backtest form', path: (s) => `/backtests/new?strategyId=${s.strategyId}`, ready: { selector: 'form' } },
  {
    name: 'backtest results',
    path: (s) => `/backtests/${s.backtestIds[0]}`,
    ready: { selector: ['[data-testid="candle-chart"] figcaption', '.log-lines li'] },
  },
  { name: 'backtest list', path: () => '/backtests', ready: { selector: '.compare-pick' } },
  { name: 'compare backtests', path: (s) => `/backtests/compare?a=${s.backtestIds[0]}&b=${s.backtestIds[1]}`, ready: { selector: '.compare-metrics' } },
  { name: 'optimizations list', path: () => '/optimizations', ready: { selector: '.optimization-list tbody tr' } },
  {
    name: 'optimization form, then a searched parameter and walk-forward validation',
    path: (s) => `/optimizations/new?strategyId=${s.strategyId}`,
    ready: { selector: '.param-search' },
    reveal: async (page) => {
      await page.getByRole('group', { name: 'fast', exact: true }).getByLabel('Search').check();
      await page.getByLabel('Scheme').selectOption('walk-forward');
      await page.getByLabel('Folds').waitFor();
    },
  },
  {
    name: 'optimization (completed: best, statistics, heatmap, trials)',
    path: (s) => `/optimizations/${s.optimizationId}`,
    ready: { selector: ['[data-testid="heatmap"]', '.trials-table tbody tr', '.folds-table'] },
  },
  { name: 'billing', path: () => '/billing', ready: { selector: '.usage-meters' } },
  {
    name: 'notifications, then the add-a-channel form with its event checkboxes and the bell open',
    path: () => '/notifications',
    ready: { selector: '.empty-state' },
    reveal: async (page) => {
      await page.getByRole('button', { name: 'Add channel' }).click();
      await page.getByLabel('All events (including those added later)').uncheck();
      await page.locator('.event-choices').waitFor();
      await page.locator('.bell-button').click();
      await page.locator('.bell-dropdown').waitFor();
    },
  },
  { name: 'deployments list', path: () => '/deployments', ready: { selector: 'tbody tr' } },
  {
    name: 'deployment (running, live orders), then its stop dialog',
    path: (s) => `/deployments/${s.deploymentId}`,
    ready: { selector: '.live-orders tbody tr' },
    reveal: (page) => openDialog(page, page.getByRole('button', { name: 'Stop', exact: true }), 'Stop this deployment?'),
  },
  {
    name: 'deployment (halted: the breach, risk limits, pre-flight, reconciliation), then its restart dialog',
    path: (s) => `/deployments/${s.haltedDeploymentId}`,
    ready: { selector: ['.halt-banner', 'section[aria-labelledby="risk-title"] .metric-card', '.check-list li'] },
    reveal: (page) => openDialog(page, page.getByRole('button', { name: 'Restart' }), 'Restart this deployment?'),
  },
  { name: 'new deployment', path: () => '/deployments/new', ready: { selector: 'form' } },
  { name: 'new deployment (no exchange account yet)', path: () => '/deployments/new', ready: { selector: '.paper-credential' }, user: 'other' },
  { name: 'marketplace', path: () => '/marketplace', ready: { selector: '.listing-card' } },
  {
    name: 'my listings, then the new listing form',
    path: () => '/marketplace/mine',
    ready: { selector: '.my-listings' },
    reveal: async (page) => {
      await page.getByRole('button', { name: 'New listing' }).click();
      await page.getByRole('button', { name: 'Publish listing' }).waitFor();
    },
  },
  { name: 'my purchases', path: () => '/marketplace/purchases', ready: { selector: 'tbody tr' } },
  { name: 'listing (own, reviewed)', path: (s) => `/marketplace/${s.ownListingId}`, ready: { selector: '.review-text' } },
  { name: 'listing (bought, reviewed by the user)', path: (s) => `/marketplace/${s.boughtListingId}`, ready: { selector: '.review-text' } },
  {
    name: 'listing (not bought), then its buy dialog',
    path: (s) => `/marketplace/${s.unboughtListingId}`,
    ready: { heading: 'Breakout (seeded)' },
    reveal: (page) => openDialog(page, page.getByRole('button', { name: 'Buy for $12.50' }), 'Buy Breakout (seeded)?'),
  },
  {
    name: 'listing with a verified record (badge, two-segment chart, metrics, claims beside the verified figures)',
    path: (s) => `/marketplace/${s.claimedListingId}`,
    ready: { selector: ['.listing-record [data-testid="equity-chart"]', '.record-metrics tbody tr', '.claim-verified'] },
  },
  { name: 'page not found', path: () => '/no/such/page', ready: { heading: 'Page not found' } },
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

/** Clicks `opener` and waits for the dialog `name`. */
async function openDialog(page: Page, opener: Locator, name: string): Promise<void> {
  await opener.click();
  await page.getByRole('dialog', { name }).waitFor();
}

async function waitReady(page: Page, ready: PageCheck['ready']): Promise<void> {
  if ('selector' in ready) for (const selector of [ready.selector].flat()) await page.locator(selector).first().waitFor();
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
  let other: { apiKey: string; client: StratboxClient };
  let otherTab: DashboardTab;

  beforeAll(async () => {
    await ensureDashboardBuilt();
    // Two live bots: the running deployment and the halted one (halted still counts).
    service = await startWsTestService({
      clock: acceleratedClock(60),
      deployments: { pollIntervalMs: 100 },
      billing: { plans: { free: { limits: { deployments: 2 } } } },
      // verified records ready in seconds: a short platform backtest window, a loop that runs often
      verification: { intervalMs: 250, backtestDays: 30 },
    });
    ({ apiKey, client } = await service.newUser('a11y-user'));
    other = await service.newUser('a11y-other');
    const { listingId: ownListingId } = await seedReviewedListing(client, other.client, 'Trend rider (seeded)');
    const { listingId: boughtListingId } = await seedReviewedListing(other.client, client, 'Range fader (seeded)');
    const { listingId: unboughtListingId } = await seedListing(other.client, 'Breakout (seeded)');
    const claimed = await other.client.strategies.create({ body: { name: 'Rocket (source)', source: SMA_CROSS } });
    const { id: claimedListingId } = await other.client.marketplace.create({
      body: { strategyId: claimed.id, name: 'Rocket (seeded)', description: '+300 % in backtests! Max drawdown 5 %.', price: 4_900 },
    });
    await waitFor(
      'the claimed listing’s record',
      async () => (await other.client.marketplace.record({ params: { id: claimedListingId } })).current?.status === 'ready',
      180_000,
      250,
    );
    const { deploymentId } = await seedPaperDeployment(client);
    const { deploymentId: haltedDeploymentId } = await seedHaltedDeployment(client);
    const backtests = await seedTwoBacktests(client);
    const { optimizationId } = await seedOptimization(client, backtests.strategyId);
    seeded = { ...backtests, optimizationId, deploymentId, haltedDeploymentId, ownListingId, boughtListingId, unboughtListingId, claimedListingId };
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.setDefaultTimeout(BROWSER_TIMEOUT_MS);
    otherTab = await openDashboardTab(browser);
    await signIn(otherTab.page, service.baseUrl, other.apiKey);
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
      const tab = check.user === 'other' ? otherTab.page : page;
      await tab.goto(service.baseUrl + check.path(seeded));
      await waitReady(tab, check.ready);
      expect(await seriousViolations(tab), check.name).toEqual([]);
      if (!check.reveal) return;
      await check.reveal(tab);
      expect(await seriousViolations(tab), `${check.name}: revealed`).toEqual([]);
    }, 60_000);
  }
});

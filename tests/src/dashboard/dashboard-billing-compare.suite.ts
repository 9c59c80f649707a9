import type { StratboxClient } from '@stratbox/client';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROWSER_TIMEOUT_MS, launchChromium, screenshotPath } from '../harness/browser.js';
import { colouredPixels } from '../harness/canvas-pixels.js';
import { ensureDashboardBuilt } from '../harness/dashboard-build.js';
import { seedTwoBacktests } from '../harness/dashboard-seed.js';
import { startWsTestService, type WsTestService } from '../harness/ws-service.js';

/*
 * The billing page and comparing two backtests, in the built dashboard in headless Chromium
 * against the example app (local billing provider: checkouts complete at once). Screenshots go
 * to tests/.artifacts/dashboard-billing-compare/.
 */

const shot = (page: Page, name: string) => page.screenshot({ path: screenshotPath('dashboard-billing-compare', name), fullPage: true });

describe('billing and compare in the dashboard', () => {
  let service: WsTestService;
  let browser: Browser;
  let page: Page;
  let apiKey: string;
  let client: StratboxClient;
  let backtestIds: [string, string];
  const pageErrors: string[] = [];

  beforeAll(async () => {
    await ensureDashboardBuilt();
    service = await startWsTestService();
    ({ apiKey, client } = await service.newUser('billing-user'));
    ({ backtestIds } = await seedTwoBacktests(client));
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.on('pageerror', (error) => pageErrors.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) pageErrors.push(message.text());
    });
    page.setDefaultTimeout(BROWSER_TIMEOUT_MS);
    await page.goto(service.baseUrl);
    await page.getByLabel('API key').fill(apiKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Strategies' }).waitFor();
  }, 300_000);

  afterAll(async () => {
    await browser?.close();
    await service?.close();
  });

  it('picks two completed backtests in the list and compares them: one chart rebased to 100, metrics side by side', async () => {
    await page.getByRole('link', { name: 'Backtests', exact: true }).click();
    await page.getByRole('heading', { name: 'Backtests' }).waitFor();
    const compare = page.getByRole('button', { name: 'Compare' });
    expect(await compare.isDisabled()).toBe(true);
    const picks = page.locator('.compare-pick');
    await expect.poll(() => picks.count()).toBe(2);
    await picks.nth(0).check();
    expect(await compare.isDisabled()).toBe(true);
    await picks.nth(1).check();
    await compare.click();
    await page.waitForURL(/\/backtests\/compare\?a=bt_.*&b=bt_/);
    const url = new URL(page.url());
    expect([url.searchParams.get('a'), url.searchParams.get('b')].sort()).toEqual([...backtestIds].sort());

    const chart = page.getByTestId('compare-chart');
    await chart.locator('canvas').first().waitFor();
    await expect.poll(() => colouredPixels(chart), { timeout: 10_000 }).toBeGreaterThan(500);
    const legend = await chart.locator('.compare-legend').textContent();
    expect(legend).toMatch(/A: BTC\/USDT:USDT 1h.*ends at \d+\.\d.*B: BTC\/USDT:USDT 1h.*ends at \d+\.\d/);

    // the table's figures are those of each run, in the order of the address
    const [a, b] = await Promise.all([url.searchParams.get('a')!, url.searchParams.get('b')!].map((id) => client.backtests.get({ params: { id } })));
    const tradesRow = page.locator('.compare-metrics tr', { has: page.getByRole('rowheader', { name: 'Trades', exact: true }) });
    expect(await tradesRow.locator('td').allTextContents()).toEqual([a!.metrics!.tradeCount.toLocaleString('en'), b!.metrics!.tradeCount.toLocaleString('en')]);
    // ends at: each curve's last equity over its first, times 100
    const endOf = (run: typeof a) => ((run!.equityCurve!.at(-1)!.equity / run!.equityCurve![0]!.equity) * 100).toFixed(1);
    expect(legend).toContain(`ends at ${endOf(a)}`);
    expect(legend).toContain(`ends at ${endOf(b)}`);
    // one of the two Sharpe ratios is marked the better, unless they tie
    const sharpeRow = page.locator('.compare-metrics tr', { has: page.getByRole('rowheader', { name: 'Sharpe', exact: true }) });
    const better = await sharpeRow.locator('td[data-better="true"]').count();
    expect(better).toBe(a!.metrics!.sharpe === b!.metrics!.sharpe ? 0 : 1);
    await shot(page, '1-compare');
    expect(pageErrors).toEqual([]);
  });

  it('shows the free plan, its usage meters and no invoices yet', async () => {
    await page.getByRole('link', { name: 'Billing' }).click();
    await page.getByRole('heading', { name: 'Billing', level: 1 }).waitFor();
    const plan = page.getByTestId('plan-summary');
    await plan.waitFor();
    expect(await plan.locator('.plan-tier').textContent()).toBe('Free');
    const usage = await client.billing.usage();
    expect(usage.backtests.used).toBe(2);
    const backtests = page.getByTestId('usage-backtests');
    expect(await backtests.locator('.usage-text').textContent()).toBe(`2 of ${usage.backtests.limit}`);
    expect(await backtests.getByRole('meter', { name: 'Backtests' }).getAttribute('value')).toBe('2');
    expect(await page.getByTestId('usage-deployments').locator('.usage-text').textContent()).toBe(`0 of ${usage.deployments.limit}`);
    expect(await page.getByTestId('usage-compute').locator('.usage-text').textContent()).toMatch(/^\d+ s of 30 min$/);
    await page.getByText('No invoices yet').waitFor();
    await shot(page, '2-billing-free');
  });

  it('upgrades to Pro: the local provider completes the checkout at once, so the page shows the new plan and its invoice', async () => {
    await page.getByRole('button', { name: 'Upgrade to Pro' }).click();
    await page.getByText('You are on the Pro plan now').waitFor();
    expect(page.url()).toBe(`${service.baseUrl}/billing`);
    const plan = page.getByTestId('plan-summary');
    await expect.poll(() => plan.locator('.plan-tier').textContent()).toBe('Pro');
    const { renewalDate } = await client.billing.subscription();
    expect(await plan.textContent()).toContain(`Renews${renewalDate!.slice(0, 10)} ${renewalDate!.slice(11, 16)} UTC`);
    expect(await page.getByRole('button', { name: /Upgrade to/ }).count()).toBe(0);
    const row = page.locator('.invoice-table tbody tr');
    await expect.poll(() => row.count()).toBe(1);
    expect(await row.locator('td').allTextContents()).toEqual(expect.arrayContaining(['paid', '$29.00']));
    // the Pro plan's limits, over the new period the subscription started
    const { used, limit } = (await client.billing.usage()).backtests;
    expect(limit).toBeGreaterThan(50);
    expect(await page.getByTestId('usage-backtests').locator('.usage-text').textContent()).toBe(`${used} of ${limit.toLocaleString('en')}`);
    await shot(page, '3-billing-pro');
  });

  it('Manage billing goes to the portal address the provider answers', async () => {
    const expected = new URL((await client.billing.portal({ body: {} })).url);
    // the local provider's address is a placeholder: answer it here instead of leaving the machine
    await page.route(`${expected.origin}/**`, (route) => route.fulfill({ status: 200, contentType: 'text/html', body: '<title>Portal</title><p>portal</p>' }));
    await page.getByRole('button', { name: 'Manage billing' }).click();
    await page.waitForURL((url) => url.origin === expected.origin && url.pathname === expected.pathname);
    await page.goBack();
    await page.getByRole('heading', { name: 'Billing', level: 1 }).waitFor();
    expect(pageErrors).toEqual([]);
  });
});

import { randomBytes } from 'node:crypto';
import type { StratboxClient } from '@stratbox/client';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acceleratedClock } from '../harness/accelerated-clock.js';
import { launchChromium } from '../harness/browser.js';
import { type DashboardTab, openDashboardTab, screenshot, signIn } from '../harness/dashboard-browser.js';
import { ensureDashboardBuilt } from '../harness/dashboard-build.js';
import { EVERY_CANDLE, SMA_CROSS } from '../harness/dashboard-seed.js';
import { TWO_ORDERS } from '../harness/dashboard-seed-risk.js';
import { startWsTestService, type WsTestService } from '../harness/ws-service.js';

/*
 * The built dashboard's deployments and marketplace in headless Chromium against the example app
 * with its WebSocket endpoint (in this process, SQLite). The clock runs 60 times faster than real
 * time and deployments poll every 100 ms, so a '1m' strategy sees a closed candle every second.
 * Screenshots go to tests/.artifacts/dashboard/.
 */

/** A line of the sold strategy no page of the buyer's may ever show. */
const SECRET = `const edge_${randomBytes(6).toString('hex')} = 'the proprietary part';`;
/** SMA_CROSS with the secret line under its meta. */
const EDGE = SMA_CROSS.replace('\n', `\n${SECRET}\n`);
const TAG = `e2e-${randomBytes(3).toString('hex')}`;

const shot = (page: Page, name: string) => screenshot(page, 'dashboard', name);

/** Nothing wider than a 1024 px laptop screen; the tab goes back to 1280 px after. */
async function fitsLaptop(page: Page, name: string) {
  await page.setViewportSize({ width: 1024, height: 768 });
  await expect.poll(() => page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(1024);
  await shot(page, name);
  await page.setViewportSize({ width: 1280, height: 900 });
}

/** True when the focused element is inside an open dialog. */
const focusInDialog = (page: Page) => page.evaluate(() => Boolean(document.activeElement?.closest('dialog[open]')));

describe('the dashboard’s deployments and marketplace in a browser', () => {
  let service: WsTestService;
  let browser: Browser;
  let alice: { apiKey: string; client: StratboxClient };
  let bob: { apiKey: string; client: StratboxClient };
  let seller: DashboardTab;
  let buyer: DashboardTab;
  /** What the buyer's tab showed and received, to search for the sold source. */
  const buyerSaw: string[] = [];
  /** The paths of every API call the buyer's tab made. */
  const buyerCalls: string[] = [];
  const buyerText = async () => buyerSaw.push(await buyer.page.evaluate(() => document.body.textContent ?? ''));

  beforeAll(async () => {
    await ensureDashboardBuilt();
    service = await startWsTestService({ clock: acceleratedClock(60), deployments: { pollIntervalMs: 100 } });
    alice = await service.newUser('seller');
    bob = await service.newUser('buyer');
    browser = await launchChromium();
    seller = await openDashboardTab(browser);
    buyer = await openDashboardTab(browser);
    buyer.page.on('request', (request) => {
      const url = new URL(request.url());
      if (url.pathname.startsWith('/api/')) buyerCalls.push(url.pathname);
    });
    buyer.page.on('response', async (response) => {
      if (!response.url().includes('/api/')) return;
      buyerSaw.push(await response.text().catch(() => ''));
    });
    buyer.page.on('websocket', (socket) => socket.on('framereceived', (frame) => buyerSaw.push(String(frame.payload))));
  }, 300_000);

  afterAll(async () => {
    await browser?.close();
    await service?.close();
  });

  it('deploys on paper, creating the paper account in the form, and shows orders as they arrive', async () => {
    const { page } = seller;
    const trader = await alice.client.strategies.create({ body: { name: 'Every candle (e2e)', source: EVERY_CANDLE } });
    await signIn(page, service.baseUrl, alice.apiKey);
    await page.getByRole('link', { name: 'Deployments' }).click();
    await page.getByText('No deployments yet').waitFor();
    await page.getByRole('link', { name: 'New deployment' }).click();
    await page.getByRole('heading', { name: 'No exchange account yet' }).waitFor();
    await page.getByLabel('Label').fill('My paper');
    await page.getByRole('button', { name: 'Create paper account' }).click();
    await expect.poll(() => page.getByLabel('Exchange account').inputValue()).toMatch(/^cred_/);
    expect(await page.getByLabel('Exchange account').locator('option:checked').textContent()).toBe('My paper (paper: simulated)');
    await page.getByLabel('Strategy').selectOption(trader.id);
    await page.getByLabel('Symbols').fill('BTC/USDT:USDT');
    await shot(page, 'live-1-new-deployment');
    await page.getByRole('button', { name: 'Deploy', exact: true }).click();
    await page.waitForURL(/\/deployments\/dep_/);
    // the deployment names its strategy and links to it
    const strategyLink = page.locator('.page-header').getByRole('link', { name: 'Every candle (e2e)' });
    await strategyLink.waitFor();
    expect(await strategyLink.getAttribute('href')).toBe(`/strategies/${trader.id}`);

    // orders of the channel: the live table lists only what arrived while the page was open
    const live = page.locator('.live-orders tbody tr');
    await live.first().waitFor({ timeout: 60_000 });
    const row = await live.first().textContent();
    expect(row).toContain('BTC/USDT:USDT');
    expect(row).toMatch(/buy|sell/);
    await expect.poll(() => page.locator('.live-orders').textContent(), { timeout: 30_000 }).toContain('filled');
    const deploymentId = page.url().split('/').at(-1)!;
    const { orders } = await alice.client.deployments.orders({ params: { id: deploymentId } });
    const liveIds = await live.evaluateAll((rows) => rows.map((r) => r.getAttribute('data-order-id')));
    expect(orders.map((o) => o.id)).toEqual(expect.arrayContaining(liveIds));
    await expect.poll(() => page.locator('h1 .badge').textContent(), { timeout: 10_000 }).toBe('running');
    await page.getByRole('heading', { name: 'Positions and P&L' }).waitFor();
    await expect
      .poll(() =>
        page
          .locator('.metric-card', { has: page.getByText('Realized P&L', { exact: true }) })
          .locator('dd')
          .textContent(),
      )
      .toMatch(/^-?[\d,]+\.\d\d$/);
    await page.locator('.log-lines li', { hasText: 'traded BTC/USDT:USDT' }).first().waitFor({ timeout: 30_000 });
    // the order history follows the live orders by itself
    const history = page.locator('section[aria-labelledby="orders-title"] tbody tr');
    await expect.poll(() => history.count(), { timeout: 30_000 }).toBeGreaterThanOrEqual(3);
    await shot(page, 'live-2-orders-arriving');
    await fitsLaptop(page, 'live-2-laptop-width');
    expect(seller.errors).toEqual([]);
  }, 120_000);

  it('asks before stopping in a dialog that takes the focus and closes on Escape; stops, restarts and deletes', async () => {
    const { page } = seller;
    await page.getByRole('button', { name: 'Stop', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Stop this deployment?' });
    await dialog.waitFor();
    expect(await focusInDialog(page)).toBe(true);
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    expect(await page.locator('h1 .badge').textContent()).toBe('running');
    // focus is back on the button that opened it
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Stop');

    await page.getByRole('button', { name: 'Stop', exact: true }).click();
    await dialog.getByRole('button', { name: 'Stop deployment' }).click();
    await expect.poll(() => page.locator('h1 .badge').textContent(), { timeout: 30_000 }).toBe('stopped');
    await page.getByText('the deployment is stopped, its stop closed its positions', { exact: false }).waitFor();
    await shot(page, 'live-3-stopped');

    await page.getByRole('button', { name: 'Restart' }).click();
    await page.getByRole('dialog', { name: 'Restart this deployment?' }).getByRole('button', { name: 'Restart deployment' }).click();
    await expect.poll(() => page.locator('h1 .badge').textContent(), { timeout: 30_000 }).toBe('running');

    await page.getByRole('button', { name: 'Delete' }).click();
    const remove = page.getByRole('dialog', { name: 'Delete this deployment?' });
    expect(await focusInDialog(page)).toBe(true);
    await remove.getByRole('button', { name: 'Delete deployment' }).click();
    await page.waitForURL(/\/deployments$/);
    await page.getByText('No deployments yet').waitFor({ timeout: 30_000 });
    expect((await alice.client.deployments.list()).deployments).toEqual([]);
    expect(seller.errors).toEqual([]);
  }, 120_000);

  it('deploys on paper with risk limits set in the form, shows them on its page, shows the breach when halted, restarts and stops it from halted', async () => {
    const { page } = seller;
    const strategy = await alice.client.strategies.create({ body: { name: 'Two orders (e2e)', source: TWO_ORDERS } });
    await page.getByRole('link', { name: 'Deployments' }).click();
    await page.getByRole('link', { name: 'New deployment' }).click();
    await expect.poll(() => page.getByLabel('Exchange account').inputValue()).toMatch(/^cred_/);
    await page.getByLabel('Strategy').selectOption(strategy.id);
    await page.getByLabel('Symbols').fill('BTC/USDT:USDT');
    await page.getByLabel('Max drawdown (%)').fill('20');
    await page.getByLabel('Daily loss limit (%)').fill('2.5');
    await page.getByLabel('Max position notional').fill('5000');
    await page.getByLabel('Max orders per minute').fill('1');
    await page.getByLabel('On a breach').selectOption('keep');
    await shot(page, 'live-risk-1-form');
    await page.getByRole('button', { name: 'Deploy', exact: true }).click();
    await page.waitForURL(/\/deployments\/dep_/);
    const id = page.url().split('/').at(-1)!;
    expect((await alice.client.deployments.get({ params: { id } })).risk).toEqual({
      maxDrawdown: 0.2,
      dailyLossLimit: 0.025,
      maxPositionNotional: 5000,
      maxOrdersPerMinute: 1,
      onBreach: 'keep',
    });

    // the limits as the page shows them
    const limits = page.locator('section[aria-labelledby="risk-title"]');
    const card = (label: string) => limits.locator('.metric-card', { has: page.getByText(label, { exact: true }) }).locator('dd');
    await card('Max drawdown').waitFor();
    expect(await card('Max drawdown').textContent()).toBe('20.00%');
    expect(await card('Daily loss limit').textContent()).toBe('2.50%');
    expect(await card('Max position notional').textContent()).toBe('5,000.00');
    expect(await card('Max orders per minute').textContent()).toBe('1');
    expect(await card('On a breach').textContent()).toBe('keep the positions');

    // its second order on the first candle breaches maxOrdersPerMinute (it is not sent, so no order tells the page):
    // the page, reading a running deployment again every few seconds, shows which limit, the figures and when
    await expect.poll(() => page.locator('h1 .badge').textContent(), { timeout: 60_000 }).toBe('halted');
    const banner = page.locator('.halt-banner');
    await banner.waitFor();
    expect(await banner.locator('.error-title').textContent()).toBe('The deployment is halted: Max orders per minute');
    expect(await banner.textContent()).toContain('The strategy asked for 2 orders within a minute; maxOrdersPerMinute is 1');
    const halt = (await alice.client.deployments.get({ params: { id } })).halt!;
    expect(await banner.locator('.halt-figures').textContent()).toBe(`Measured2Limit1Halted at${halt.at.slice(0, 10)} ${halt.at.slice(11, 16)}`);
    // the pre-flight result is shown too
    await page.locator('section[aria-labelledby="preflight-title"]').getByText('Passed', { exact: true }).waitFor();
    await shot(page, 'live-risk-2-halted');
    await fitsLaptop(page, 'live-risk-2-laptop-width');

    // restart from halted: the halt is cleared, and the strategy, started afresh, breaches again
    await page.getByRole('button', { name: 'Restart' }).click();
    await page.getByRole('dialog', { name: 'Restart this deployment?' }).getByRole('button', { name: 'Restart deployment' }).click();
    await expect
      .poll(
        async () => {
          const d = await alice.client.deployments.get({ params: { id } });
          return d.status === 'halted' && d.halt !== null && d.halt.at !== halt.at;
        },
        { timeout: 60_000 },
      )
      .toBe(true);
    await page.reload();
    await expect.poll(() => page.locator('h1 .badge').textContent()).toBe('halted');

    // stop from halted closes what it kept
    await page.getByRole('button', { name: 'Stop', exact: true }).click();
    await page.getByRole('dialog', { name: 'Stop this deployment?' }).getByRole('button', { name: 'Stop deployment' }).click();
    await expect.poll(() => page.locator('h1 .badge').textContent(), { timeout: 30_000 }).toBe('stopped');
    await expect(page.locator('.halt-banner').count()).resolves.toBe(0);
    await alice.client.deployments.delete({ params: { id } });
    expect(seller.errors).toEqual([]);
  }, 180_000);

  it('lists a strategy from My listings', async () => {
    const { page } = seller;
    const edge = await alice.client.strategies.create({ body: { name: 'Edge (e2e)', source: EDGE } });
    await page.getByRole('link', { name: 'Marketplace' }).click();
    await page.getByRole('link', { name: 'My listings' }).click();
    await page.getByText('Nothing listed').waitFor();
    await page.getByRole('button', { name: 'New listing' }).click();
    await page.getByLabel('Strategy', { exact: true }).selectOption(edge.id);
    await page.getByLabel('Name').fill('Trend edge (e2e)');
    await page.getByLabel('Price (USD)').fill('12.50');
    await page.getByRole('textbox', { name: 'Tags' }).fill(`trend, ${TAG}`);
    await page.getByLabel('Description').fill('Rides trends on the hourly chart.');
    await page.getByRole('button', { name: 'Publish listing' }).click();
    await page.getByText('Published Trend edge (e2e)').waitFor();
    await expect(page.locator('.my-listings').textContent()).resolves.toMatch(/\$12\.50.*No reviews yet.*0 bought.*version 1.*trend/);
    await shot(page, 'live-4-listed');
    expect(seller.errors).toEqual([]);
  });

  it('a second user finds it by tag, buys it and backtests it by its listing to 100%, never seeing its source', async () => {
    const { page } = buyer;
    await signIn(page, service.baseUrl, bob.apiKey);
    await page.getByRole('link', { name: 'Marketplace' }).click();
    await page.getByRole('textbox', { name: 'Tags' }).fill(TAG);
    await page.getByRole('button', { name: 'Search' }).click();
    await expect.poll(() => page.locator('.listing-card').count()).toBe(1);
    await buyerText();
    await page.getByRole('link', { name: 'Trend edge (e2e)' }).click();
    await page.getByRole('heading', { name: 'Trend edge (e2e)' }).waitFor();
    await page.getByRole('button', { name: 'Buy for $12.50' }).click();
    const dialog = page.getByRole('dialog', { name: 'Buy Trend edge (e2e)?' });
    await dialog.waitFor();
    expect(await focusInDialog(page)).toBe(true);
    await dialog.getByRole('button', { name: 'Pay $12.50' }).click();
    await page.getByText('You have a run-only licence').waitFor();
    await buyerText();
    await shot(page, 'live-5-bought');

    await page.getByRole('link', { name: 'Backtest it' }).click();
    await page.getByRole('heading', { name: 'New backtest' }).waitFor();
    const listingId = (await bob.client.marketplace.purchases()).purchases[0]!.listingId;
    await expect.poll(() => page.getByLabel('Strategy').inputValue()).toBe(listingId);
    await page.getByText('its source stays hidden', { exact: false }).waitFor();
    await page.getByLabel('Symbols').fill('BTC/USDT:USDT');
    await page.getByLabel('From').fill('2025-01-01');
    await page.getByLabel('To (inclusive)').fill('2025-02-28');
    await buyerText();
    await page.getByRole('button', { name: 'Run backtest' }).click();
    await page.waitForURL(/\/backtests\/bt_/);
    const bar = page.getByRole('progressbar', { name: 'Backtest progress' });
    await bar.waitFor();
    await expect.poll(async () => Number(await bar.getAttribute('aria-valuenow')), { timeout: 120_000 }).toBe(100);
    await page.locator('h1 .badge-completed').waitFor({ timeout: 60_000 });
    await page.getByRole('heading', { name: 'Metrics' }).waitFor();
    const trades = Number((await page.locator('.metric-card', { hasText: 'Trades' }).locator('dd').textContent())!.replace(/,/g, ''));
    expect(trades).toBeGreaterThan(0);
    await page.getByText('No log for a bought strategy').waitFor();
    await buyerText();
    await shot(page, 'live-6-bought-backtest');
    // the run names and links its listing, and runs again by it: never the seller's strategy page
    expect(await page.getByRole('link', { name: 'Trend edge (e2e)' }).getAttribute('href')).toBe(`/marketplace/${listingId}`);
    expect(await page.getByRole('link', { name: 'Optimize' }).getAttribute('href')).toBe(`/optimizations/new?strategyId=${listingId}`);
    await page.getByRole('link', { name: 'Run another' }).click();
    await expect.poll(() => page.getByLabel('Strategy').inputValue()).toBe(listingId);
    expect(buyer.errors).toEqual([]);
  }, 240_000);

  it('the buyer reviews it: the text shown as written, the rating averaged', async () => {
    const { page } = buyer;
    await page.getByRole('link', { name: 'Marketplace' }).click();
    await page.getByRole('link', { name: 'My purchases' }).click();
    await page.getByRole('link', { name: 'Trend edge (e2e)' }).click();
    await page.getByLabel('Rating').selectOption('4');
    const text = '<b>Solid</b> & steady';
    await page.getByLabel('Review', { exact: true }).fill(text);
    await page.getByRole('button', { name: 'Publish review' }).click();
    await page.getByText('Review published').waitFor();
    await expect.poll(() => page.locator('.review-text').first().textContent()).toBe(text);
    await expect.poll(() => page.locator('h1 + p').textContent()).toContain('4.0 of 5 (1 review)');
    await buyerText();
    await shot(page, 'live-7-reviewed');
    await fitsLaptop(page, 'live-7-laptop-width');

    // reloaded, the page finds the buyer's review: the form edits it, filled in
    await page.reload();
    await page.getByRole('heading', { name: 'Edit your review' }).waitFor();
    expect(await page.getByLabel('Rating').inputValue()).toBe('4');
    expect(await page.getByLabel('Review', { exact: true }).inputValue()).toBe(text);
    const edited = `${text}, still`;
    await page.getByLabel('Review', { exact: true }).fill(edited);
    await page.getByRole('button', { name: 'Update review' }).click();
    await page.getByText('Review updated').waitFor();
    await expect.poll(() => page.locator('.review-text').first().textContent()).toBe(edited);
    await expect.poll(() => page.locator('h1 + p').textContent()).toContain('4.0 of 5 (1 review)');
    await buyerText();

    // nothing the buyer's tab showed, fetched or was sent over the socket holds the source
    expect(buyerSaw.length).toBeGreaterThan(10);
    // and no page even asked for a strategy's source: the bought one is only ever named by its listing
    expect(buyerCalls).toContain('/api/backtests');
    expect(buyerCalls.filter((path) => path.startsWith('/api/strategies/'))).toEqual([]);
    for (const seen of buyerSaw) {
      expect(seen).not.toContain(SECRET);
      expect(seen).not.toContain('ctx.indicators.sma');
    }
    expect(buyer.errors).toEqual([]);
  });

  it('the buyer deploys the bought listing on paper from its page', async () => {
    const { page } = buyer;
    await page.getByRole('link', { name: 'Deploy it' }).click();
    await page.getByRole('heading', { name: 'New deployment' }).waitFor();
    const listingId = (await bob.client.marketplace.purchases()).purchases[0]!.listingId;
    await expect.poll(() => page.getByLabel('Strategy').inputValue()).toBe(listingId);
    await page.getByRole('button', { name: 'Create paper account' }).click();
    await expect.poll(() => page.getByLabel('Exchange account').inputValue()).toMatch(/^cred_/);
    await page.getByRole('button', { name: 'Deploy', exact: true }).click();
    await page.waitForURL(/\/deployments\/dep_/);
    await expect.poll(() => page.locator('h1 .badge').textContent(), { timeout: 30_000 }).toMatch(/starting|running/);
    const { deployments } = await bob.client.deployments.list();
    expect(deployments).toHaveLength(1);
    // named and linked by the listing, here and in the list
    expect(await page.getByRole('link', { name: 'Trend edge (e2e)' }).getAttribute('href')).toBe(`/marketplace/${listingId}`);
    await page.getByRole('link', { name: 'All deployments' }).click();
    await expect.poll(() => page.locator('tbody tr').first().textContent()).toMatch(/Trend edge \(e2e\) v1.*BTC\/USDT:USDT/);
    await buyerText();
    expect(buyerCalls.filter((path) => path.startsWith('/api/strategies/'))).toEqual([]);
    for (const seen of buyerSaw) expect(seen).not.toContain(SECRET);
    expect(buyer.errors).toEqual([]);
  }, 60_000);

  it('the seller edits the listing, then unlists it after a confirmation; the buyer keeps the purchase', async () => {
    const { page } = seller;
    await page.getByRole('link', { name: 'Marketplace' }).click();
    await page.getByRole('link', { name: 'My listings' }).click();
    await page.getByRole('button', { name: 'Edit Trend edge (e2e)' }).click();
    await page.getByLabel('Price (USD)').fill('15');
    await page.getByRole('button', { name: 'Save listing' }).click();
    await page.getByText('Saved Trend edge (e2e)').waitFor();
    await expect(page.locator('.my-listings').textContent()).resolves.toMatch(/\$15\.00.*4\.0 of 5 \(1 review\).*1 bought/);

    await page.getByRole('button', { name: 'Unlist Trend edge (e2e)' }).click();
    const dialog = page.getByRole('dialog', { name: 'Unlist Trend edge (e2e)?' });
    await dialog.getByRole('button', { name: 'Unlist' }).click();
    await page.getByText('Trend edge (e2e) is no longer listed').waitFor();
    await page.getByText('Nothing listed').waitFor();
    await shot(page, 'live-8-unlisted');

    await buyer.page.getByRole('link', { name: 'Marketplace' }).click();
    await buyer.page.getByRole('link', { name: 'My purchases' }).click();
    const row = buyer.page.locator('tbody tr').first();
    await expect.poll(() => row.textContent()).toMatch(/unlisted.*\$12\.50.*completed/);
    await row.getByRole('link', { name: 'Backtest' }).waitFor();
    expect(seller.errors).toEqual([]);
    expect(buyer.errors).toEqual([]);
  });
});

import type { StratboxClient } from '@stratbox/client';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acceleratedClock } from '../harness/accelerated-clock.js';
import { launchChromium } from '../harness/browser.js';
import { type DashboardTab, openDashboardTab, screenshot, signIn } from '../harness/dashboard-browser.js';
import { ensureDashboardBuilt } from '../harness/dashboard-build.js';
import { EVERY_CANDLE } from '../harness/dashboard-seed.js';
import { waitFor } from '../harness/deferred.js';
import { startWsTestService, type WsTestService } from '../harness/ws-service.js';

/*
 * Verified listings in the built dashboard (headless Chromium, the example app on SQLite in this
 * process): a seller lists a '1m' strategy whose description claims "+300 % in backtests!",
 * choosing in the form the symbols and timeframe the platform verifies it on; the
 * listing page shows the claim with the platform's verified figure beside it once the server's
 * own verification loop has run the platform backtest (the page asks again while the record is
 * pending: the test waits for what it shows). The list shows the badges and sorts by forward days.
 * The clock runs 60 times faster, so '1m' candles close every second and forward records grow;
 * the operator's platform backtest window is 3 days, so it runs in seconds.
 */

const CLAIM = '+300 % in backtests';
const percent = new Intl.NumberFormat('en', { style: 'percent', minimumFractionDigits: 2, maximumFractionDigits: 2 });
const shot = (page: Page, name: string) => screenshot(page, 'dashboard', name);

describe('verified listings in the dashboard', () => {
  let service: WsTestService;
  let browser: Browser;
  let seller: { apiKey: string; client: StratboxClient };
  let buyer: { apiKey: string; client: StratboxClient };
  let tab: DashboardTab;
  let buyerTab: DashboardTab;
  let olderId: string;
  let rocketStrategyId: string;

  beforeAll(async () => {
    await ensureDashboardBuilt();
    service = await startWsTestService({ clock: acceleratedClock(60), verification: { intervalMs: 250, backtestDays: 3 } });
    seller = await service.newUser('verified-seller');
    buyer = await service.newUser('verified-buyer');
    // an older listing, so that two forward records of different lengths run
    const older = await seller.client.strategies.create({ body: { name: 'Steady (source)', source: EVERY_CANDLE } });
    olderId = (
      await seller.client.marketplace.create({
        body: { strategyId: older.id, name: 'Steady (verified e2e)', description: 'Trades every candle.', price: 500, tags: ['verified-e2e'] },
      })
    ).id;
    rocketStrategyId = (await seller.client.strategies.create({ body: { name: 'Rocket (source)', source: EVERY_CANDLE } })).id;
    browser = await launchChromium();
    tab = await openDashboardTab(browser);
    await signIn(tab.page, service.baseUrl, seller.apiKey);
    buyerTab = await openDashboardTab(browser);
    await signIn(buyerTab.page, service.baseUrl, buyer.apiKey);
  }, 300_000);

  afterAll(async () => {
    await browser?.close();
    await service?.close();
  });

  it('the seller lists a strategy claiming "+300 % in backtests!": My listings shows its record', async () => {
    const { page } = tab;
    await page.getByRole('link', { name: 'Marketplace' }).click();
    await page.getByRole('link', { name: 'My listings' }).click();
    await page.getByRole('button', { name: 'New listing' }).click();
    await page.getByLabel('Strategy', { exact: true }).selectOption(rocketStrategyId);
    await page.getByLabel('Name').fill('Rocket (verified e2e)');
    await page.getByLabel('Price (USD)').fill('49');
    await page.getByRole('textbox', { name: 'Tags' }).fill('verified-e2e');
    await page.getByLabel('Description').fill(`${CLAIM}! Buy now.`);
    // the symbols and timeframe the platform verifies it on: a symbol that is not a ccxt symbol is refused at its field
    const symbols = page.getByRole('textbox', { name: 'Verified on symbols' });
    await symbols.fill('ETH-USDT');
    await page.getByRole('button', { name: 'Publish listing' }).click();
    await expect.poll(() => page.locator('#listing-symbols-error').textContent()).toMatch(/ccxt unified symbol/);
    expect(await symbols.getAttribute('aria-invalid')).toBe('true');
    await symbols.fill('eth/usdt:usdt, BTC/USDT:USDT');
    await page.getByLabel('Verified on timeframe').selectOption('1m');
    await page.getByRole('button', { name: 'Publish listing' }).click();
    await page.getByText('Published Rocket (verified e2e)').waitFor();
    const mine = (await seller.client.marketplace.myListings()).listings.find((l) => l.name === 'Rocket (verified e2e)')!;
    const record = await seller.client.marketplace.record({ params: { id: mine.id } });
    expect(record.current?.identity).toMatchObject({ symbols: ['ETH/USDT:USDT', 'BTC/USDT:USDT'], timeframe: '1m' });
    const card = page.locator('.my-listings li', { hasText: 'Rocket (verified e2e)' });
    await expect.poll(() => card.locator('.evidence-badge').textContent()).toBe('insufficient');
    await expect.poll(() => card.locator('.record-summary').textContent()).toMatch(/forward .+, \d+ trades?, return/);
    expect(tab.errors).toEqual([]);
  });

  it('a buyer sees the claim with the verified figure beside it, and the badge insufficient with what it means', async () => {
    const { page } = buyerTab;
    await page.getByRole('link', { name: 'Marketplace' }).click();
    await page.getByRole('link', { name: 'Rocket (verified e2e)' }).click();
    await page.getByRole('heading', { name: 'Rocket (verified e2e)', level: 1 }).waitFor();
    const claim = page.locator('.claim', { hasText: CLAIM });
    // before the record is ready the claim is still never alone: "not verified yet" beside it
    expect(await claim.locator('.claim-verified').textContent()).toMatch(/^(verified: |not verified yet)/);
    // the platform backtest runs in the server's verification loop; the page asks again while pending
    await claim.locator('.claim-verified', { hasText: /^verified: / }).waitFor({ timeout: 180_000 });

    const listingId = page.url().split('/').at(-1)!;
    const detail = await buyer.client.marketplace.record({ params: { id: listingId } });
    const verified = detail.current?.backtest?.metrics.totalReturn;
    expect(detail.current?.status).toBe('ready');
    expect(typeof verified).toBe('number');
    expect(await claim.locator('mark').textContent()).toBe(CLAIM);
    expect(await claim.locator('.claim-verified').textContent()).toBe(`verified: ${percent.format(verified!)}`);
    // nowhere on the page is the claimed figure without the verified one right after it
    const text = (await page.locator('main').textContent()) ?? '';
    expect(text.split('+300 %').length - 1).toBe(1);
    expect(text).toMatch(/\+300 % in backtests verified: /);

    const badge = page.locator('.record-badge');
    expect(await badge.locator('.evidence-badge').textContent()).toBe('insufficient');
    expect(await badge.textContent()).toMatch(
      /of forward record: too little to judge\. A record is emerging from 90 days and 30 trades, established from 180 days and 100 trades\./,
    );
    // the record leads the page: chart, metrics of both segments, search effort, what was run
    await page.locator('.listing-record [data-testid="equity-chart"]').waitFor();
    expect(await page.locator('.record-metrics tbody tr').count()).toBe(11);
    expect(await page.locator('.search-effort').textContent()).toMatch(
      /^The seller ran 0 backtests and 0 optimization trials on this strategy before listing it\. .*DSR/,
    );
    expect(await page.locator('.record-identity').textContent()).toContain(detail.current!.identity.sourceSha256.slice(0, 12));
    await shot(page, 'verified-1-listing-record');
    expect(buyerTab.errors).toEqual([]);
  }, 240_000);

  it('the list shows each badge, and sorting by forward days puts the longer forward record first', async () => {
    const { page } = buyerTab;
    // the older listing's forward record has gained more days than the newer one's
    await waitFor(
      'the older forward record ahead of the newer one',
      async () => {
        const { listings } = await buyer.client.marketplace.search({ query: { tags: 'verified-e2e', sort: 'forwardDays' } });
        return listings.length === 2 && listings[0]!.id === olderId && (listings[0]!.record?.forwardDays ?? 0) > (listings[1]!.record?.forwardDays ?? 0);
      },
      180_000,
      500,
    );
    await page.getByRole('link', { name: 'Marketplace' }).click();
    await page.getByRole('textbox', { name: 'Tags' }).fill('verified-e2e');
    await page.getByRole('button', { name: 'Search' }).click();
    const names = () => page.locator('.listing-card h2').allTextContents();
    // newest first: the claimed one, listed last
    await expect.poll(names).toEqual(['Rocket (verified e2e)', 'Steady (verified e2e)']);
    expect(await page.locator('.listing-card .evidence-badge').allTextContents()).toEqual(['insufficient', 'insufficient']);
    expect(await page.locator('.listing-card .record-summary').first().textContent()).toMatch(/forward .+, \d+ trades?, return/);
    // the list never shows a description's figures (they are checked on the listing page)
    expect(await page.locator('.listing-cards').textContent()).not.toContain('+300');

    await page.getByLabel('Sort by').selectOption('forwardDays');
    await expect.poll(names).toEqual(['Steady (verified e2e)', 'Rocket (verified e2e)']);
    await shot(page, 'verified-2-sorted-by-forward-days');

    // a minimum badge no record has yet empties the list
    await page.getByLabel('Minimum badge').selectOption('established');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByText('No listing matches').waitFor();
    expect(buyerTab.errors).toEqual([]);
  }, 240_000);

  it('a new version starts a new record; the earlier one is kept, collapsed below', async () => {
    const { page } = buyerTab;
    const rocket = (await seller.client.marketplace.myListings()).listings.find((l) => l.name === 'Rocket (verified e2e)')!;
    await seller.client.strategies.update({ params: { id: rocketStrategyId }, body: { source: `${EVERY_CANDLE}\n// v2\n` } });
    await seller.client.marketplace.update({ params: { id: rocket.id }, body: { strategyVersion: 2 } });
    await page.goto(`${service.baseUrl}/marketplace/${rocket.id}`);
    await page.getByText('version 2', { exact: false }).first().waitFor();
    const lineage = page.locator('.record-lineage');
    await lineage.getByText('Earlier versions’ records (1)').click();
    await lineage.getByRole('heading', { name: /^Version 1/ }).waitFor();
    expect(await lineage.locator('.record-metrics').count()).toBe(1);
    expect(buyerTab.errors).toEqual([]);
  });

  it('an unlisted listing’s record page, reached by its link, still shows, marked no longer listed', async () => {
    const { page } = buyerTab;
    await seller.client.marketplace.unlist({ params: { id: olderId } });
    await page.goto(`${service.baseUrl}/marketplace/${olderId}`);
    await page.getByRole('heading', { name: 'Steady (verified e2e)', level: 1 }).waitFor();
    await page.getByText('No longer listed').waitFor();
    await page.locator('.listing-record .evidence-badge').waitFor();
    expect(buyerTab.errors).toEqual([]);
  });
});

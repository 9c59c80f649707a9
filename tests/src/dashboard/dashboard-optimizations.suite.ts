import type { StratboxClient } from '@stratbox/client';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../harness/browser.js';
import { type DashboardTab, openDashboardTab, screenshot, signIn } from '../harness/dashboard-browser.js';
import { ensureDashboardBuilt } from '../harness/dashboard-build.js';
import { SEED_RANGE } from '../harness/dashboard-seed.js';
import { smaCrossStrategy } from '../harness/optimizations.js';
import { startWsTestService, type WsTestService } from '../harness/ws-service.js';

/*
 * The optimizations section of the built dashboard in headless Chromium, against the example app
 * with its WebSocket endpoint (in this process, SQLite): a grid optimization made through the
 * form (its trial count said before it is sent, a refused field and a refused plan cap shown),
 * followed live to 100%, then its results checked against what the API answers. Screenshots go
 * to tests/.artifacts/dashboard-optimizations/.
 */

const shot = (page: Page, name: string) => screenshot(page, 'dashboard-optimizations', name);

/** Sets parameter `name` of the form to a searched range. */
async function searchRange(page: Page, name: string, from: string, to: string, step: string) {
  const group = page.getByRole('group', { name, exact: true });
  await group.getByLabel('Search').check();
  await group.getByLabel('From').fill(from);
  await group.getByLabel('To').fill(to);
  await group.getByLabel('Step').fill(step);
}

describe('the dashboard’s optimizations', () => {
  let service: WsTestService;
  let browser: Browser;
  let tab: DashboardTab;
  let page: Page;
  let client: StratboxClient;
  let strategyId: string;
  let optimizationId: string;

  beforeAll(async () => {
    await ensureDashboardBuilt();
    service = await startWsTestService();
    const user = await service.newUser('optimizer');
    client = user.client;
    // a little guest work per candle, so the trials take long enough to be watched
    ({ id: strategyId } = await client.strategies.create({ body: { name: 'SMA cross (optimized)', source: smaCrossStrategy(20_000) } }));
    browser = await launchChromium();
    tab = await openDashboardTab(browser);
    page = tab.page;
    await signIn(page, service.baseUrl, user.apiKey);
  });

  afterAll(async () => {
    await browser?.close();
    await service?.close();
  });

  it('lists no optimizations yet, and leads from there and from a strategy to the form', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Optimizations' }).click();
    await page.getByRole('heading', { name: 'Optimizations', level: 1 }).waitFor();
    await page.getByText('No optimizations yet').waitFor();
    await shot(page, '1-empty');
    await page.locator('.empty-state').getByRole('link', { name: 'New optimization' }).click();
    await page.getByRole('heading', { name: 'New optimization' }).waitFor();

    await page.goto(`${service.baseUrl}/strategies/${strategyId}`);
    await page.getByRole('link', { name: 'Optimize' }).click();
    await page.waitForURL(/\/optimizations\/new\?strategyId=/);
    // the strategy's parameters, each fixed at its default until searched
    await expect(page.getByRole('group', { name: 'fast', exact: true }).getByLabel('Value', { exact: true }).inputValue()).resolves.toBe('10');
    await expect(page.locator('.trial-count').textContent()).resolves.toBe('Choose at least one parameter to search.');
  });

  it('shows a refused search step at its field and a plan’s trial cap as a sentence', async () => {
    await page.getByLabel('Symbols').fill('BTC/USDT:USDT');
    await page.getByLabel('From').first().fill('2025-01-01');
    await page.getByLabel('To (inclusive)').fill('2025-02-28');
    await searchRange(page, 'fast', '5', '15', '2.5');
    await searchRange(page, 'slow', '20', '40', '10');
    await page.getByRole('button', { name: 'Start optimization' }).click();
    const stepError = page.locator('#search-fast-step-error');
    await stepError.waitFor();
    expect(await stepError.textContent()).toMatch(/integer/);
    expect(await page.getByLabel('Step').first().getAttribute('aria-invalid')).toBe('true');
    await shot(page, '2-field-error');

    // 49 × 96 combinations: over the free plan's 1,000 trials
    await searchRange(page, 'fast', '2', '50', '1');
    await searchRange(page, 'slow', '5', '100', '1');
    await expect(page.locator('.trial-count').textContent()).resolves.toBe('4,704 parameter set(s) × 1 fold(s) = 4,704 trial(s)');
    await page.getByRole('button', { name: 'Start optimization' }).click();
    const alert = page.getByRole('alert').filter({ hasText: 'Too many trials for your plan' });
    await alert.waitFor();
    expect(await alert.textContent()).toMatch(/PLAN_LIMIT_EXCEEDED This search holds 4,704 trials; your plan allows 1,000 per optimization\./);
    await shot(page, '3-over-the-cap');
  });

  it('creates a 3 × 3 grid with 2 walk-forward folds and follows its progress to 100%', async () => {
    await searchRange(page, 'fast', '5', '15', '5');
    await searchRange(page, 'slow', '20', '40', '10');
    await page.getByLabel('Scheme').selectOption('walk-forward');
    await page.getByLabel('Folds').fill('2');
    await expect(page.locator('.trial-count').textContent()).resolves.toBe('9 parameter set(s) × 2 fold(s) = 18 trial(s)');
    await shot(page, '4-form');
    await page.getByRole('button', { name: 'Start optimization' }).click();
    await page.waitForURL(/\/optimizations\/opt_/);
    optimizationId = page.url().split('/').at(-1)!;

    const bar = page.getByRole('progressbar', { name: 'Optimization progress' });
    await bar.waitFor();
    await expect.poll(async () => Number(await bar.getAttribute('aria-valuenow')), { timeout: 180_000, interval: 100 }).toBe(100);
    expect(await page.locator('.progress-text').textContent()).toMatch(/^100% · 18 of 18 trials/);
    await page.locator('h1 .badge-completed').waitFor({ timeout: 60_000 });
    await shot(page, '5-completed');
  }, 240_000);

  it('shows the best parameters the API names, its statistics, a 3 × 3 heatmap and every trial', async () => {
    const detail = await client.optimizations.get({ params: { id: optimizationId } });
    expect(detail.status).toBe('completed');
    const best = detail.best!;
    for (const name of ['fast', 'slow']) {
      await expect(page.locator(`.best-params tr[data-param="${name}"] td`).textContent()).resolves.toBe(best.params[name]);
    }
    // two folds in the statistics
    await expect(page.locator('.folds-table tbody tr').count()).resolves.toBe(2);
    expect(await page.locator('.statistics-pending').count()).toBe(0);

    const heatmap = page.getByTestId('heatmap');
    await expect(heatmap.locator('.heat-cell').count()).resolves.toBe(9);
    expect(await heatmap.locator('thead th').count()).toBe(4);
    const pair = detail.results!.sensitivity.pairs[0]!;
    expect(await heatmap.locator('.heat-cell').evaluateAll((cells) => new Set(cells.map((c) => getComputedStyle(c).backgroundColor)).size)).toBeGreaterThan(1);
    expect(pair.x).toEqual(['5', '10', '15']);

    const rows = page.locator('.trials-table tbody tr');
    await expect.poll(() => rows.count()).toBe(18);
    expect(detail.trialsTotal).toBe(18);
    // best first, as the API orders them
    const { trials } = await client.optimizations.trials({ params: { id: optimizationId }, query: { limit: 50 } });
    expect(await rows.first().locator('th').textContent()).toBe(String(trials[0]!.index + 1));
    await page.getByRole('columnheader', { name: '#' }).getByRole('button').click();
    await expect.poll(async () => rows.first().locator('th').textContent()).toBe('1');
    expect(await page.getByRole('columnheader', { name: '#' }).getAttribute('aria-sort')).toBe('ascending');

    // one fold's trials, as the API filters them: 9 parameter sets of fold 1, then all 18 again
    const foldSelect = page.getByLabel('Fold', { exact: true });
    expect(await foldSelect.locator('option').allTextContents()).toEqual(['All', '1', '2']);
    await foldSelect.selectOption({ label: '1' });
    await expect.poll(() => rows.count()).toBe(9);
    expect(await rows.locator('td:first-of-type').allTextContents()).toEqual(Array(9).fill('1'));
    await expect(page.locator('.trials-table caption').textContent()).resolves.toMatch(/9 shown \(fold 1\)/);
    await foldSelect.selectOption({ label: 'All' });
    await expect.poll(() => rows.count()).toBe(18);

    await page.setViewportSize({ width: 1024, height: 768 });
    await expect.poll(() => page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(1024);
    await shot(page, '6-results-laptop');
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it('lists the optimization and leads to the full backtest of its best parameters', async () => {
    const detail = await client.optimizations.get({ params: { id: optimizationId } });
    const link = page.getByRole('link', { name: 'Full backtest of the best parameters' });
    expect(await link.getAttribute('href')).toBe(`/backtests/${detail.best!.backtestId}`);
    await link.click();
    await page.waitForURL(/\/backtests\/bt_/);
    await page.getByRole('heading', { name: /Backtest/, level: 1 }).waitFor();
    const settings = page.locator('.page-header p.small');
    await expect(settings.textContent()).resolves.toContain(`fast=${detail.best!.params.fast}, slow=${detail.best!.params.slow}`);

    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Optimizations' }).click();
    const row = page.locator('.optimization-list tbody tr');
    await expect.poll(() => row.count()).toBe(1);
    expect(await row.textContent()).toMatch(/completed.*grid · walk-forward 2 folds \(rolling\).*Sharpe ratio.*18 \/ 18/);
    await shot(page, '7-list');
    expect(tab.errors).toEqual([]);
  });

  it('cancels a running optimization after a confirmation, its progress stopped short of 100%', async () => {
    // 40 × 15 = 600 trials of the slow strategy: still running when the user clicks
    const created = await client.optimizations.create({
      body: {
        strategyId,
        ...SEED_RANGE,
        searchSpace: { fast: { min: 2, max: 41, step: 1 }, slow: { min: 50, max: 64, step: 1 } },
      },
    });
    expect(created.trialsTotal).toBe(600);
    await page.goto(`${service.baseUrl}/optimizations/${created.id}`);
    const card = page.locator('section.card').filter({ has: page.getByRole('heading', { name: /Progress/ }) });
    const bar = card.getByRole('progressbar', { name: 'Optimization progress' });
    await expect.poll(async () => Number(await bar.getAttribute('aria-valuenow')), { timeout: 180_000, interval: 100 }).toBeGreaterThan(0);

    await card.getByRole('button', { name: 'Cancel', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Cancel this optimization?' });
    await dialog.waitFor();
    // focus moves into the dialog, onto its safe choice
    expect(await dialog.getByRole('button', { name: 'Cancel', exact: true }).evaluate((button) => button === document.activeElement)).toBe(true);
    await shot(page, '8-cancel-dialog');
    await dialog.getByRole('button', { name: 'Cancel optimization' }).click();

    await page.locator('h1 .badge-cancelled').waitFor({ timeout: 60_000 });
    await card.locator('.badge-cancelled').waitFor({ timeout: 60_000 });
    await dialog.waitFor({ state: 'hidden' });
    expect(await card.getByRole('button', { name: 'Cancel', exact: true }).count()).toBe(0);
    expect(Number(await bar.getAttribute('aria-valuenow'))).toBeLessThan(100);
    expect(await card.locator('.progress-text').textContent()).toMatch(/ of 600 trials$/);

    const detail = await client.optimizations.get({ params: { id: created.id } });
    expect(detail.status).toBe('cancelled');
    expect(detail.trialsDone).toBeGreaterThan(0);
    expect(detail.trialsDone).toBeLessThan(detail.trialsTotal);
    // the page says how many trials were kept, as the API counts them
    await expect
      .poll(
        async () => {
          const { trialsDone } = await client.optimizations.get({ params: { id: created.id } });
          return (await page.getByText('This optimization was cancelled').textContent())?.includes(`its ${trialsDone.toLocaleString('en')} stored trial(s)`);
        },
        { timeout: 60_000, interval: 250 },
      )
      .toBe(true);
    await shot(page, '9-cancelled');
    expect(tab.errors).toEqual([]);
  }, 300_000);
});

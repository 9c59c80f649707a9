import type { StratboxClient } from '@stratbox/client';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROWSER_TIMEOUT_MS, launchChromium, screenshotPath } from '../harness/browser.js';
import { colouredPixels } from '../harness/canvas-pixels.js';
import { ensureDashboardBuilt } from '../harness/dashboard-build.js';
import { startWsTestService, type WsTestService } from '../harness/ws-service.js';

/*
 * The built dashboard in headless Chromium against the example app with its WebSocket endpoint
 * (in this process, SQLite),
 * driven as a person would: every step asserts what the page shows. Screenshots go to
 * tests/.artifacts/dashboard/.
 */

const META = "export const meta = { timeframe: '1h', params: { fast: { type: 'int', default: 10, min: 2 }, slow: { type: 'int', default: 30, min: 5 } } };";
const BROKEN = [META, 'export function onCandle(ctx, candle) {', '  const f = ;', '}'].join('\n');
const FIXED = [
  META,
  'export function onCandle(ctx, candle) {',
  '  const f = ctx.indicators.sma(candle.symbol, ctx.params.fast), s = ctx.indicators.sma(candle.symbol, ctx.params.slow);',
  '  if (f > s && !ctx.position(candle.symbol)) {',
  '    ctx.buy(candle.symbol, { size: 0.2 });',
  "    ctx.log('cross up', candle.symbol);",
  '  }',
  '  else if (f < s && ctx.position(candle.symbol)) ctx.close(candle.symbol);',
  '}',
].join('\n');
const SYMBOLS = ['BTC/USDT:USDT', 'ETH/USDT:USDT'];

const shot = (page: Page, name: string) => page.screenshot({ path: screenshotPath('dashboard', name), fullPage: true });

/** Replaces the editor's text as a paste would (no auto-closed brackets or auto-indent). */
async function typeSource(page: Page, source: string) {
  await page.locator('.cm-content').click();
  await page.keyboard.press('Control+A');
  await page.keyboard.insertText(source);
}

describe('the dashboard in a browser', () => {
  let service: WsTestService;
  let browser: Browser;
  let page: Page;
  let apiKey: string;
  let client: StratboxClient;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    // the example app serves examples/dashboard/dist, built (again) here when stale
    await ensureDashboardBuilt();
    service = await startWsTestService();
    ({ apiKey, client } = await service.newUser('dashboard-user'));
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.on('pageerror', (error) => pageErrors.push(error.message));
    page.on('console', (message) => {
      // the refusals this test provokes (401, 400) are logged by the browser as failed loads
      if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) pageErrors.push(message.text());
    });
    page.setDefaultTimeout(BROWSER_TIMEOUT_MS);
  }, 300_000);

  afterAll(async () => {
    await browser?.close();
    await service?.close();
  });

  it('signs in with an API key, after showing how to get one', async () => {
    await page.goto(service.baseUrl);
    await expect(page.getByText('npx -y pnpm@10 cli create-user alice').isVisible()).resolves.toBe(true);
    await page.getByLabel('API key').fill('sbx_wrong');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page.getByRole('alert').textContent()).resolves.toMatch(/UNAUTHENTICATED/);
    await page.getByLabel('API key').fill(apiKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Strategies' }).waitFor();
    await page.getByText('No strategies yet').waitFor();
    await shot(page, '1-signed-in');
  });

  it('marks a syntax error at its line when a save is refused', async () => {
    await page.getByRole('link', { name: 'New strategy' }).click();
    await page.getByLabel('Name').fill('SMA cross (e2e)');
    await typeSource(page, BROKEN);
    await page.getByRole('button', { name: 'Create strategy' }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toMatch(/VALIDATION_FAILED.*line 3, column 13/);
    await expect(page.locator('.source-problems').textContent()).resolves.toMatch(/Line 3, column 13: Unexpected ";"/);
    await page.locator('.cm-lintRange-error').waitFor();
    const markedLines = await page
      .locator('.cm-line')
      .evaluateAll((lines) => lines.flatMap((line, i) => (line.querySelector('.cm-lintRange-error') ? [i + 1] : [])));
    expect(markedLines).toEqual([3]);
    expect(await page.locator('.cm-lint-marker-error').count()).toBe(1);
    await shot(page, '2-syntax-error');
  });

  it('saves the fixed source, then a second version, and diffs them', async () => {
    await typeSource(page, FIXED);
    await page.getByRole('button', { name: 'Create strategy' }).click();
    await page.waitForURL(/\/strategies\/str_/);
    await page.getByRole('heading', { name: 'SMA cross (e2e)' }).waitFor();
    await page.getByText('version 1', { exact: false }).first().waitFor();
    expect(await page.locator('.cm-lintRange-error').count()).toBe(0);
    // the parameters the backtest form will offer, read from the source
    await expect(page.locator('.params-preview').textContent()).resolves.toMatch(/fast.*int.*10.*at least 2/);

    await typeSource(page, FIXED.replace('size: 0.2', 'size: 0.25'));
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByText('Saved version 2').waitFor();
    await page.getByRole('button', { name: 'Compare' }).click();
    const diff = page.locator('.version-diff');
    await diff.waitFor();
    expect(await diff.locator('figcaption').textContent()).toMatch(/Version 1 → version 2: 1 line\(s\) added, 1 removed/);
    expect(await diff.locator('.diff-added').textContent()).toContain('size: 0.25');
    await shot(page, '3-saved-and-diffed');
  });

  it('runs a two-symbol backtest: a bad parameter is shown at its field, then the progress bar reaches 100%', async () => {
    await page.getByRole('link', { name: 'Run a backtest' }).click();
    await page.getByRole('heading', { name: 'New backtest' }).waitFor();
    await expect(page.getByLabel('fast', { exact: true }).inputValue()).resolves.toBe('10');
    await page.getByLabel('Symbols').fill(SYMBOLS.join(' '));
    await page.getByLabel('From').fill('2025-01-01');
    await page.getByLabel('To (inclusive)').fill('2025-03-31');
    await page.getByLabel('fast', { exact: true }).fill('1');
    await page.getByRole('button', { name: 'Run backtest' }).click();
    await page.locator('#param-fast-error').waitFor();
    expect(await page.locator('#param-fast-error').textContent()).toMatch(/at least 2/);
    await shot(page, '4-field-error');

    await page.getByLabel('fast', { exact: true }).fill('10');
    await page.getByRole('button', { name: 'Run backtest' }).click();
    await page.waitForURL(/\/backtests\/bt_/);
    const bar = page.getByRole('progressbar', { name: 'Backtest progress' });
    await bar.waitFor();
    const seen = new Set<number>();
    const deadline = Date.now() + 120_000;
    while (Date.now() < deadline) {
      const value = Number(await bar.getAttribute('aria-valuenow'));
      seen.add(value);
      if (value === 100) break;
      await page.waitForTimeout(50);
    }
    expect(seen.has(100)).toBe(true);
    expect(await page.locator('.progress-text').textContent()).toMatch(/^100%/);
    await page.locator('.badge-completed').first().waitFor({ timeout: 60_000 });
    await page.getByRole('heading', { name: 'Metrics' }).waitFor();
    // the run names its strategy and links to it
    const strategyLink = page.locator('.page-header').getByRole('link', { name: 'SMA cross (e2e)' });
    await strategyLink.waitFor();
    expect(await strategyLink.getAttribute('href')).toMatch(/^\/strategies\/str_/);
    await shot(page, '5-completed');
  }, 180_000);

  it('draws the equity curve and each symbol’s candles with one entry and one exit marker per trade', async () => {
    const backtestId = page.url().split('/').at(-1)!;
    const { tradeCount } = await client.backtests.get({ params: { id: backtestId } });
    const tradesCard = page.locator('.metric-card', { hasText: 'Trades' }).locator('dd');
    const shownTrades = Number((await tradesCard.textContent())!.replace(/,/g, ''));
    expect(shownTrades).toBeGreaterThan(0);
    expect(shownTrades).toBe(tradeCount);

    const equity = page.getByTestId('equity-chart');
    await equity.locator('canvas').first().waitFor();
    await expect.poll(() => colouredPixels(equity), { timeout: 10_000 }).toBeGreaterThan(500);

    let marked = 0;
    for (const symbol of SYMBOLS) {
      await page.getByRole('tab', { name: symbol }).click();
      const chart = page.locator(`[data-testid="candle-chart"][data-symbol="${symbol}"]`);
      await chart.locator('figcaption').waitFor({ timeout: 30_000 });
      const trades = Number(await chart.getAttribute('data-trades'));
      expect(trades, symbol).toBeGreaterThan(0);
      await expect.poll(async () => Number(await chart.getAttribute('data-markers'))).toBe(2 * trades);
      expect(await chart.locator('figcaption').textContent()).toContain(`${trades} trade(s) marked with ${2 * trades} markers`);
      await expect.poll(() => colouredPixels(chart), { timeout: 10_000 }).toBeGreaterThan(500);
      marked += trades;
      await shot(page, `6-candles-${symbol.replace(/\W+/g, '-')}`);
    }
    expect(marked).toBe(shownTrades);
    expect(pageErrors).toEqual([]);
  }, 60_000);

  it('sorts and pages the trades, lists the log, and fits a laptop screen', async () => {
    const backtestId = page.url().split('/').at(-1)!;
    const { trades, tradeCount } = await client.backtests.get({ params: { id: backtestId } });
    const pager = page.locator('.pager');
    await expect(pager.textContent()).resolves.toContain(`Page 1 of ${Math.ceil(tradeCount! / 25)} · ${tradeCount} trades`);
    const pnlHeader = page.getByRole('columnheader', { name: 'P&L' });
    await pnlHeader.getByRole('button').click();
    await pnlHeader.getByRole('button').click();
    expect(await pnlHeader.getAttribute('aria-sort')).toBe('descending');
    const best = Math.max(...trades!.map((t) => t.pnl));
    const firstPnl = await page.locator('.trades-table tbody tr').first().locator('td').nth(7).textContent();
    expect(Number(firstPnl!.replace(/,/g, ''))).toBeCloseTo(best, 2);
    await pager.getByRole('button', { name: 'Next' }).click();
    await expect(pager.textContent()).resolves.toMatch(/^.*Page 2 of/);

    const log = page.locator('.log-lines li');
    await log.first().waitFor();
    expect(await log.first().textContent()).toMatch(/info cross up (BTC|ETH)\/USDT:USDT/);

    await page.setViewportSize({ width: 1024, height: 768 });
    await expect.poll(() => page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(1024);
    await shot(page, '7-laptop-width');
    expect(pageErrors).toEqual([]);
  });

  it('cancels a running backtest from its progress bar', async () => {
    await page.setViewportSize({ width: 1280, height: 900 });
    // slow on purpose: about a million steps of guest code per candle, so the run is still going when cancelled
    const slow = await client.strategies.create({
      body: { name: 'Slow (e2e)', source: 'export function onCandle(ctx, candle) {\n  let x = 0;\n  for (let i = 0; i < 1e6; i++) x += i;\n}' },
    });
    await page.getByRole('link', { name: 'Backtests', exact: true }).click();
    await page.getByRole('link', { name: 'New backtest' }).click();
    await page.getByLabel('Strategy').selectOption(slow.id);
    await page.getByLabel('Symbols').fill('BTC/USDT:USDT');
    await page.getByLabel('From').fill('2025-01-01');
    await page.getByLabel('To (inclusive)').fill('2025-01-31');
    await page.getByRole('button', { name: 'Run backtest' }).click();
    await page.waitForURL(/\/backtests\/bt_/);
    await page.locator('.badge-running').first().waitFor({ timeout: 60_000 });
    await page.getByRole('button', { name: 'Cancel' }).click();
    await page.getByText('This run was cancelled').waitFor({ timeout: 30_000 });
    expect(await page.locator('h1 .badge').textContent()).toBe('cancelled');
    expect(await page.getByRole('button', { name: 'Cancel' }).count()).toBe(0);
    const { backtests } = await client.backtests.list({ query: { status: 'cancelled' } });
    expect(backtests.map((b) => b.strategyId)).toEqual([slow.id]);
    await shot(page, '8-cancelled');
    expect(pageErrors).toEqual([]);
  }, 120_000);
});

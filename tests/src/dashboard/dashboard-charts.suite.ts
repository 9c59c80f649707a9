import type { StratboxClient } from '@stratbox/client';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../harness/browser.js';
import { colouredPixels } from '../harness/canvas-pixels.js';
import { type DashboardTab, openDashboardTab, screenshot, signIn } from '../harness/dashboard-browser.js';
import { ensureDashboardBuilt } from '../harness/dashboard-build.js';
import { SMA_CROSS } from '../harness/dashboard-seed.js';
import { waitFinished } from '../harness/wait-backtest.js';
import { startWsTestService, type WsTestService } from '../harness/ws-service.js';

/*
 * The backtest page's charts of a whole year (headless Chromium at laptop size, the example app
 * in this process, SQLite). A completed January-December `1h` run has thousands of equity points
 * and 8,760 candles, more than the chart's box holds at the library's default least bar spacing:
 * the page must still open on the whole run, its first and its last point and candle in view,
 * without the user scrolling or zooming the charts. What a chart shows is read from the range
 * it reports in view (`data-visible-from`/`data-visible-to` on its figure) against its first
 * and last point (`data-first`/`data-last`), and from its pixels. Screenshots go to
 * tests/.artifacts/dashboard/.
 */

const SYMBOL = 'BTC/USDT:USDT';
const RANGE = { startDate: '2025-01-01', endDate: '2025-12-31' };

const shot = (page: Page, name: string) => screenshot(page, 'dashboard', name);

/** The figure's data attributes that say what its chart holds and shows. */
async function shownRange(figure: Locator) {
  return figure.evaluate((element) => {
    const d = (element as HTMLElement).dataset;
    return { first: d.first ?? null, last: d.last ?? null, visibleFrom: d.visibleFrom ?? null, visibleTo: d.visibleTo ?? null };
  });
}

/** Waits until the chart in `figure` reports a range in view, then asserts it spans its first to its last point. */
async function expectWholeRunInView(figure: Locator, what: string) {
  const { first, last } = await shownRange(figure);
  await expect.poll(async () => (await shownRange(figure)).visibleFrom, { timeout: 60_000, message: `${what}: a range in view` }).not.toBeNull();
  // the chart settles on its box's size: give it time to, then the range in view must run from the first point to the last
  await expect
    .poll(
      async () => {
        const r = await shownRange(figure);
        return { from: r.visibleFrom, to: r.visibleTo };
      },
      { timeout: 30_000, message: `${what}: the whole run in view` },
    )
    .toEqual({ from: first, to: last });
}

describe('the charts of a year-long backtest', () => {
  let service: WsTestService;
  let browser: Browser;
  let client: StratboxClient;
  let apiKey: string;
  let tab: DashboardTab;
  let backtestId: string;

  beforeAll(async () => {
    await ensureDashboardBuilt();
    service = await startWsTestService();
    ({ apiKey, client } = await service.newUser('charts-user'));
    const strategy = await client.strategies.create({ body: { name: 'SMA cross (a year)', source: SMA_CROSS } });
    const created = await client.backtests.create({ body: { strategyId: strategy.id, symbols: [SYMBOL], timeframe: '1h', ...RANGE } });
    const done = await waitFinished(client, created.id, 240_000);
    if (done.status !== 'completed') throw new Error(`The year-long backtest ${created.id} ended ${done.status}`);
    backtestId = created.id;
    browser = await launchChromium();
    tab = await openDashboardTab(browser);
    await signIn(tab.page, service.baseUrl, apiKey);
  }, 300_000);

  afterAll(async () => {
    await browser?.close();
    await service?.close();
  });

  it('opens on the whole run: the first and the last equity point and candle in view, without scrolling', async () => {
    const { page } = tab;
    const detail = await client.backtests.get({ params: { id: backtestId } });
    const points = detail.equityCurve!;
    expect(points.length).toBeGreaterThan(2_000); // more than the box holds at the library's 0.5 px least spacing
    await page.goto(`${service.baseUrl}/backtests/${backtestId}`);

    const equity = page.getByTestId('equity-chart');
    await equity.locator('canvas').first().waitFor();
    const equityRange = await shownRange(equity);
    expect(equityRange.first).toBe(new Date(Math.floor(Date.parse(points[0]!.time) / 1000) * 1000).toISOString());
    expect(equityRange.last).toBe(new Date(Math.floor(Date.parse(points.at(-1)!.time) / 1000) * 1000).toISOString());
    expect(equityRange.first).toMatch(/^2025-01-01T/);
    expect(equityRange.last).toMatch(/^2025-12-31T/);
    await expectWholeRunInView(equity, 'equity chart');
    await expect.poll(() => colouredPixels(equity), { timeout: 10_000 }).toBeGreaterThan(500);

    const candles = page.locator(`[data-testid="candle-chart"][data-symbol="${SYMBOL}"]`);
    await candles.locator('figcaption').waitFor({ timeout: 60_000 });
    expect(await candles.locator('figcaption').textContent()).toContain('8,760 1h candles');
    const candleRange = await shownRange(candles);
    expect(candleRange.first).toBe('2025-01-01T00:00:00.000Z');
    expect(candleRange.last).toBe('2025-12-31T23:00:00.000Z');
    await expectWholeRunInView(candles, 'candle chart');
    await expect.poll(() => colouredPixels(candles), { timeout: 10_000 }).toBeGreaterThan(500);
    await shot(page, 'charts-whole-year');
    expect(tab.errors).toEqual([]);
  });
});

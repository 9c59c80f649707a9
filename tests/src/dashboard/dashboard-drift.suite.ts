import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { DriftReport, StratboxClient } from '@stratbox/client';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acceleratedClock } from '../harness/accelerated-clock.js';
import { launchChromium } from '../harness/browser.js';
import { colouredPixels } from '../harness/canvas-pixels.js';
import { type DashboardTab, openDashboardTab, screenshot, signIn } from '../harness/dashboard-browser.js';
import { ensureDashboardBuilt } from '../harness/dashboard-build.js';
import { seedPaperDeployment } from '../harness/dashboard-seed.js';
import { deferred } from '../harness/deferred.js';
import { startWsTestService, type WsTestService } from '../harness/ws-service.js';

/*
 * The deployment page's Drift tab in the built dashboard (headless Chromium, the example app with
 * its WebSocket endpoint in this process, SQLite). A paper deployment of a strategy that orders on
 * every '1m' candle runs under a clock 60 times faster (a closed candle every second) until it has
 * placed a few orders; its drift report, replayed by the platform over the very candles it saw,
 * must show what paper promises: 100 % decision parity and every trade matched. The tab is read
 * as a user reads it: the figures, the overlaid equity chart's pixels, the waterfall's steps, the
 * trades table, then the alert thresholds form, and axe-core finds no serious violation.
 * Screenshots go to tests/.artifacts/dashboard/.
 */

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
/** The overlay chart's colours (dashboard's chart-theme.ts): the backtest line and the live line. */
const BACKTEST_BLUE = [0x25, 0x63, 0xeb] as const;
const LIVE_ORANGE = [0xc2, 0x41, 0x0c] as const;
const WATERFALL_STEPS = ['Backtest P&L', 'Missed trades', 'Extra trades', 'Slippage', 'Fees', 'Funding', 'Downtime', 'Remainder', 'Live P&L'];

/** A strategy on daily candles that does nothing. */
const DAILY = ["export const meta = { timeframe: '1d' };", 'export function onCandle() {}'].join('\n');

const shot = (page: Page, name: string) => screenshot(page, 'dashboard', name);

/** Pixels within `tolerance` of `rgb` on every channel, over every canvas inside `figure`: how much of one series the chart drew. */
function pixelsOf(figure: Locator, rgb: readonly [number, number, number], tolerance = 24): Promise<number> {
  return figure.evaluate(
    (element, { rgb, tolerance }) => {
      let count = 0;
      for (const canvas of Array.from(element.querySelectorAll('canvas'))) {
        if (canvas.width === 0 || canvas.height === 0) continue;
        const data = canvas.getContext('2d')?.getImageData(0, 0, canvas.width, canvas.height).data;
        if (!data) continue;
        for (let i = 0; i < data.length; i += 4) {
          if (
            data[i + 3]! > 200 &&
            Math.abs(data[i]! - rgb[0]) <= tolerance &&
            Math.abs(data[i + 1]! - rgb[1]) <= tolerance &&
            Math.abs(data[i + 2]! - rgb[2]) <= tolerance
          )
            count++;
        }
      }
      return count;
    },
    { rgb, tolerance },
  );
}

/** axe-core's serious and critical violations on the page as it is now. */
async function seriousViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE_SOURCE);
  const violations = (await page.evaluate(() =>
    (window as unknown as { axe: { run(context: Document, options: object): Promise<{ violations: unknown[] }> } }).axe
      .run(document, { resultTypes: ['violations'] })
      .then((r) => r.violations),
  )) as Array<{ id: string; impact: string | null; help: string; nodes: Array<{ target: string[] }> }>;
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.impact} ${v.id} (${v.help}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

describe('the drift tab of a paper deployment', () => {
  let service: WsTestService;
  let browser: Browser;
  let user: { apiKey: string; client: StratboxClient };
  let tab: DashboardTab;
  let deploymentId: string;

  const card = (page: Page, section: string, label: string) =>
    page
      .locator(`section[aria-labelledby="${section}"] .metric-card`, { has: page.getByText(label, { exact: true }) })
      .locator('dd')
      .first();

  beforeAll(async () => {
    await ensureDashboardBuilt();
    // two live bots: the seeded one and one still waiting for its first daily candle
    service = await startWsTestService({
      clock: acceleratedClock(60),
      deployments: { pollIntervalMs: 100 },
      billing: { plans: { free: { limits: { deployments: 2 } } } },
    });
    user = await service.newUser('drift-user');
    ({ deploymentId } = await seedPaperDeployment(user.client, 4));
    browser = await launchChromium();
    tab = await openDashboardTab(browser);
    await signIn(tab.page, service.baseUrl, user.apiKey);
  }, 300_000);

  afterAll(async () => {
    await browser?.close();
    await service?.close();
  });

  it('opens the Drift tab and shows 100 % parity, both equity curves drawn, the waterfall and every trade matched', async () => {
    const { page } = tab;
    await page.goto(`${service.baseUrl}/deployments/${deploymentId}`);
    await page.locator('.live-orders').waitFor();
    // the report the tab shows is the one its request got (the deployment runs on: a later one may hold more candles)
    const answered = page.waitForResponse((r) => new URL(r.url()).pathname === `/api/deployments/${deploymentId}/drift` && r.request().method() === 'GET', {
      timeout: 180_000,
    });
    // held back until the tab has shown that it is replaying (then passed on to the server unchanged)
    const held = deferred();
    await page.route(`**/api/deployments/${deploymentId}/drift`, async (route) => {
      await held.promise;
      await route.continue();
    });
    await page.getByRole('tab', { name: 'Drift' }).click();
    await page.getByRole('button', { name: 'Replaying…' }).waitFor();
    await page.getByRole('status').filter({ hasText: 'Replaying the deployment’s candles…' }).waitFor();
    held.resolve();
    const response = await answered;
    await page.unroute(`**/api/deployments/${deploymentId}/drift`);
    expect(response.status(), await response.text()).toBe(200);
    const report = (await response.json()) as DriftReport;
    expect(new URL(page.url()).hash).toBe('#drift');
    // the platform replays the recording: the tab says so until the report is there
    await page.locator('[data-testid="drift-report"]').waitFor({ timeout: 180_000 });
    await page.waitForFunction(() => document.querySelectorAll('.loading').length === 0);

    // decision parity: paper is exact
    // (soft: the rest of the tab is checked even when parity fails, which is the engine's failure, not the page's)
    expect.soft(await card(page, 'drift-parity-title', 'Parity').textContent(), JSON.stringify(report.parity)).toBe('100 %');
    expect
      .soft(await page.locator('section[aria-labelledby="drift-parity-title"]').textContent())
      .toContain('No divergence: the backtest made every intent the live run made');
    expect.soft(await page.locator('[data-testid="first-divergence"]').count()).toBe(0);
    expect(Number(await card(page, 'drift-parity-title', 'Live intents').textContent())).toBeGreaterThanOrEqual(4);

    // the overlay: the backtest and the live curve each drawn (the live one dashed over the wider backtest line)
    const chart = page.locator('section[aria-labelledby="drift-equity-title"] [data-testid="equity-chart"]');
    await chart.waitFor();
    await expect.poll(() => colouredPixels(chart), { timeout: 30_000 }).toBeGreaterThan(0);
    await expect.poll(() => pixelsOf(chart, BACKTEST_BLUE), { timeout: 30_000 }).toBeGreaterThan(50);
    await expect.poll(() => pixelsOf(chart, LIVE_ORANGE), { timeout: 30_000 }).toBeGreaterThan(50);
    expect(await chart.locator('.visually-hidden').textContent()).toMatch(/^Backtest from [\d.]+ to [\d.]+, deepest drawdown .*; Live from [\d.]+ to [\d.]+$/);
    expect(await card(page, 'drift-equity-title', 'Returns correlation').textContent()).toMatch(/^(–|-?\d+(\.\d+)?)$/);

    // the waterfall: every step named, with its amount as text, ending at the live P&L
    const steps = page.locator('[data-testid="drift-waterfall"] tbody tr');
    expect(await steps.locator('th').allTextContents()).toEqual(WATERFALL_STEPS);
    for (const amount of await steps.locator('td.numeric').allTextContents()) expect(amount).toMatch(/^[+\u2212-]?[\d,]+\.\d{2,8}$/);
    const live = (await steps.last().locator('td.numeric').first().textContent())!;
    expect(Number(live.replace(/,/g, ''))).toBeCloseTo(report.waterfall.livePnl, 2);

    // the trades: matched pairs, one row each, none missed or extra
    const rows = page.locator('[data-testid="drift-trades"] tbody tr');
    await rows.first().waitFor();
    expect(await rows.count()).toBe(report.trades.list.length);
    expect(await rows.first().textContent()).toMatch(/(matched|missed|extra).*BTC\/USDT:USDT.*(buy|sell)/);
    const kinds = (kind: string) => report.trades.list.filter((t) => t.kind === kind).length;
    for (const kind of ['matched', 'missed', 'extra']) {
      expect(await page.locator(`[data-testid="drift-trades"] tbody tr[data-kind="${kind}"]`).count(), kind).toBe(kinds(kind));
    }
    expect(Number(await card(page, 'drift-trades-title', 'Matched').textContent())).toBe(report.trades.matched);
    expect(report.trades.matched).toBeGreaterThanOrEqual(2);
    expect.soft([report.trades.missed, report.trades.extra], 'paper: no missed or extra trade').toEqual([0, 0]);
    // slippage against the model, and its histogram
    expect(await card(page, 'drift-costs-title', 'Model slippage').textContent()).toMatch(/ bps$/);
    expect(await card(page, 'drift-costs-title', 'Slippage p95').textContent()).toMatch(/ bps$|^–$/);
    if (report.costs.slippage.histogram.length > 0) await page.locator('[data-testid="slippage-histogram"] tbody tr').first().waitFor();

    await shot(page, 'drift-1-report');
    // nothing wider than a 1024 px laptop screen
    await page.setViewportSize({ width: 1024, height: 768 });
    await expect.poll(() => page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(1024);
    await page.setViewportSize({ width: 1280, height: 900 });
    expect(await seriousViolations(page)).toEqual([]);
    expect(tab.errors).toEqual([]);
  }, 240_000);

  it('sets the alert thresholds in the form, an empty field turning one off, and finds them again after a reload', async () => {
    const { page } = tab;
    const form = page.getByRole('form', { name: 'Drift alert thresholds' });
    await form.waitFor();
    // the defaults
    expect(await page.getByLabel('Minimum returns correlation').inputValue()).toBe('0.8');
    expect(await page.getByLabel('Maximum DTW distance').inputValue()).toBe('0.2');
    expect(await page.getByLabel('Maximum p95 slippage (x the model)').inputValue()).toBe('5');
    expect(await page.getByLabel('Alert on any decision-parity miss').isChecked()).toBe(true);

    await page.getByLabel('Minimum returns correlation').fill('0.9');
    await page.getByLabel('Maximum DTW distance').fill('');
    await page.getByLabel('Alert on any decision-parity miss').uncheck();
    await page.getByRole('button', { name: 'Save alerts' }).click();
    await page.getByText('Alert thresholds saved.').waitFor();
    expect(await user.client.deployments.getDriftAlerts({ params: { id: deploymentId } })).toEqual({
      minCorrelation: 0.9,
      maxDtw: null,
      maxSlippageRatio: 5,
      parityMiss: false,
    });

    // `#drift` in the address opens the tab again
    await page.reload();
    await page.getByRole('tab', { name: 'Drift', selected: true }).waitFor();
    await expect.poll(() => page.getByLabel('Minimum returns correlation').inputValue()).toBe('0.9');
    expect(await page.getByLabel('Maximum DTW distance').inputValue()).toBe('');
    expect(await page.getByLabel('Alert on any decision-parity miss').isChecked()).toBe(false);
    await shot(page, 'drift-2-alerts');

    // the tabs follow the arrow keys, and the overview comes back
    await page.getByRole('tab', { name: 'Drift' }).focus();
    await page.keyboard.press('ArrowLeft');
    await page.getByRole('tab', { name: 'Overview', selected: true }).waitFor();
    await page.locator('.live-orders').waitFor();
    expect(new URL(page.url()).hash).toBe('');
    expect(tab.errors).toEqual([]);
  }, 120_000);

  it('before its first candle, the Drift tab says that no candle was processed yet', async () => {
    const { page } = tab;
    // a daily strategy: under a 60x clock its first candle closes within the next 24 minutes, long after this test
    const strategy = await user.client.strategies.create({ body: { name: 'Daily (drift e2e)', source: DAILY } });
    // its own paper account: one deployment per account and symbol
    const credential = await user.client.credentials.create({ body: { exchange: 'paper', label: 'Paper (daily)' } });
    const { id } = await user.client.deployments.create({ body: { strategyId: strategy.id, credentialId: credential.id, symbols: ['BTC/USDT:USDT'] } });
    await page.goto(`${service.baseUrl}/deployments/${id}#drift`);
    await page.getByText('No candles processed yet').waitFor({ timeout: 60_000 });
    expect(await page.locator('.error-banner').count()).toBe(0);
    // the alert thresholds are there all the same
    await page.getByRole('form', { name: 'Drift alert thresholds' }).waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await shot(page, 'drift-3-no-candles');
    await user.client.deployments.stop({ params: { id } });
    expect(tab.errors).toEqual([]);
  }, 120_000);
});

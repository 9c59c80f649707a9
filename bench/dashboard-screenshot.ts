import { statSync } from 'node:fs';
import type { Stratbox } from '@stratbox/core';
import type { Browser } from 'playwright-core';
import { finishedBacktest } from './finished-backtest.js';

/** An SMA crossover on hourly candles that logs its entries: a dozen or so trades a symbol over a month, each marker distinct. */
const SMA_CROSS = `
export const meta = { timeframe: '1h', params: { fast: { type: 'int', default: 8, min: 2 }, slow: { type: 'int', default: 24, min: 5 } } };
export function onCandle(ctx, c) {
  const f = ctx.indicators.sma(c.symbol, ctx.params.fast), s = ctx.indicators.sma(c.symbol, ctx.params.slow);
  if (f > s && !ctx.position(c.symbol)) { ctx.buy(c.symbol, { size: 0.25 }); ctx.log('cross up', c.symbol); }
  else if (f < s && ctx.position(c.symbol)) ctx.close(c.symbol);
}
`;

export interface ResultsScreenshot {
  path: string;
  bytes: number;
  width: number;
  height: number;
  trades: number;
}

/**
 * Writes the README's picture of a results page to `path`: a two-symbol SMA crossover over a
 * month of hourly candles, from the top of the page to the bottom of the candle chart (metrics,
 * per-symbol figures, equity with drawdown, the first symbol's candles with every trade marked),
 * 1280 px wide. It waits until both charts have drawn and the candle chart holds its markers.
 */
export async function writeResultsScreenshot(
  { stratbox, browser, baseUrl, userId, apiKey }: { stratbox: Stratbox; browser: Browser; baseUrl: string; userId: string; apiKey: string },
  path: string,
): Promise<ResultsScreenshot> {
  const strategy = await stratbox.strategies.create(userId, { name: 'SMA cross 8/24', source: SMA_CROSS });
  const run = await finishedBacktest(stratbox, userId, {
    strategyId: strategy.id,
    symbols: ['BTC/USDT:USDT', 'ETH/USDT:USDT'],
    startDate: '2025-01-01',
    endDate: '2025-01-31',
  });
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  try {
    await context.addInitScript((session) => window.sessionStorage.setItem('stratbox.session', session), JSON.stringify({ baseUrl, apiKey }));
    const page = await context.newPage();
    page.setDefaultTimeout(60_000);
    await page.goto(`${baseUrl}/backtests/${run.id}`);
    await page.locator('[data-testid="equity-chart"] canvas').first().waitFor();
    const candles = page.locator('[data-testid="candle-chart"]');
    await candles.locator('figcaption').waitFor();
    await page.waitForFunction(() => {
      const chart = document.querySelector('[data-testid="candle-chart"]');
      return Number(chart?.getAttribute('data-markers')) > 0 && document.querySelectorAll('.loading').length === 0;
    });
    // the next frame: what was just drawn is painted
    await page.evaluate(() => new Promise((done) => requestAnimationFrame(done)));
    const box = (await candles.boundingBox())!;
    const height = Math.ceil(box.y + box.height + 24);
    await page.screenshot({ path, fullPage: true, clip: { x: 0, y: 0, width: 1280, height } });
    return { path, bytes: statSync(path).size, width: 1280, height, trades: run.tradeCount ?? 0 };
  } finally {
    await context.close();
  }
}

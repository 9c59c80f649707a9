import { createHash } from 'node:crypto';
import { generateSyntheticSeries } from '../../market-data/synthetic-market-data.js';
import type { BacktestJob } from './backtest-job.js';
import type { BacktestResult } from './build-result.js';

/**
 * A corpus of generated strategies that exercise the whole fill and account model: market,
 * limit and stop orders, stop-loss and take-profit, reduce-only orders, cancels, leverage 1, 3,
 * 10 and 25 (with liquidations), two symbols of different lengths, and SPOT. Each case is a
 * backtest job; `fingerprintResult` reduces what it produced (every trade, every equity point,
 * the metrics) to a hash at full precision, so that a rewrite of the engine can be held to give
 * exactly today's numbers.
 */
export interface GoldenCase {
  name: string;
  job: BacktestJob;
}

const LEVERAGES = [1, 3, 10, 25] as const;

/**
 * A strategy whose decisions come from the seeded `ctx.random`: on each candle it may open a
 * position of any order type, attach or move exits, reduce, cancel or close. `flavour` shifts
 * the odds so the corpus covers calm and busy strategies.
 */
function strategySource(flavour: number): string {
  return `
export const meta = { timeframe: '1h' };
const flavour = ${flavour};
export function onCandle(ctx, c) {
  const r = ctx.random();
  const pos = ctx.position(c.symbol);
  const open = ctx.orders(c.symbol);
  if (open.length > 3 && r < 0.3) ctx.cancel(open[0].id);
  if (!pos) {
    if (r < 0.08 + flavour * 0.02) {
      const side = ctx.random() < 0.5 ? 'buy' : 'sell';
      const kind = ctx.random();
      const sized = ctx.random() < 0.5 ? { size: 0.05 + ctx.random() * 0.4 } : { quantity: (100 / c.close) * (1 + ctx.random() * 5) };
      const exits = ctx.random() < 0.6 ? { stopLoss: side === 'buy' ? c.close * 0.97 : c.close * 1.03, takeProfit: side === 'buy' ? c.close * 1.04 : c.close * 0.96 } : {};
      if (kind < 0.4) ctx[side](c.symbol, { ...sized, ...exits, tag: 'm' });
      else if (kind < 0.7) ctx[side](c.symbol, { type: 'limit', price: side === 'buy' ? c.close * 0.995 : c.close * 1.005, ...sized, ...exits, tag: 'l' });
      else ctx[side](c.symbol, { type: 'stop', price: side === 'buy' ? c.close * 1.004 : c.close * 0.996, ...sized, ...exits, tag: 's' });
    }
  } else {
    if (r < 0.05) ctx.close(c.symbol);
    else if (r < 0.1) ctx.setStopLoss(c.symbol, pos.side === 'long' ? c.close * 0.99 : c.close * 1.01);
    else if (r < 0.13) ctx.setTakeProfit(c.symbol, null);
    else if (r < 0.17) ctx[pos.side === 'long' ? 'sell' : 'buy'](c.symbol, { quantity: pos.quantity / 2, reduceOnly: true });
    else if (r < 0.19 + flavour * 0.01) ctx[pos.side === 'long' ? 'buy' : 'sell'](c.symbol, { size: 0.1 });
  }
}
export function onOrder(ctx, e) {
  if (e.status === 'rejected' && ctx.random() < 0.1) ctx.cancelAll();
}
`;
}

/** Twenty-four cases: every leverage with one and two symbols, calm and busy flavours, and SPOT. */
export function goldenCorpus(): GoldenCase[] {
  const start = Date.parse('2025-01-01T00:00:00Z');
  const a = generateSyntheticSeries('BTC/USDT:USDT', '1h', start, start + 60 * 86_400_000);
  // the second symbol starts ten days later and ends five days earlier: different lengths
  const b = generateSyntheticSeries('ETH/USDT:USDT', '1h', start + 10 * 86_400_000, start + 55 * 86_400_000, { minuteVolatility: 0.0012 });
  const cases: GoldenCase[] = [];
  let seed = 1;
  for (const leverage of LEVERAGES) {
    for (const twoSymbols of [false, true]) {
      for (const flavour of [0, 3]) {
        cases.push({
          name: `x${leverage} ${twoSymbols ? 'two symbols' : 'one symbol'} flavour ${flavour}`,
          job: {
            source: strategySource(flavour),
            candles: twoSymbols ? { 'BTC/USDT:USDT': a, 'ETH/USDT:USDT': b } : { 'BTC/USDT:USDT': a },
            startTime: start + 2 * 86_400_000,
            leverage,
            fees: { maker: 0.0002, taker: 0.0006 },
            slippage: leverage > 3 ? 0.0005 : 0,
            seed: seed++,
          },
        });
      }
    }
  }
  for (const flavour of [0, 2, 4]) {
    for (const twoSymbols of [false, true]) {
      if (cases.length >= 24) break;
      cases.push({
        name: `SPOT ${twoSymbols ? 'two symbols' : 'one symbol'} flavour ${flavour}`,
        job: {
          source: strategySource(flavour),
          candles: twoSymbols ? { 'BTC/USDT:USDT': a, 'ETH/USDT:USDT': b } : { 'BTC/USDT:USDT': a },
          startTime: start + 2 * 86_400_000,
          marketType: 'SPOT',
          seed: seed++,
        },
      });
    }
  }
  return cases;
}

/**
 * What a run produced, reduced to counts and one hash over every number at full precision. The
 * hash covers the fields the engine had when the fingerprints were recorded: trades and metrics
 * are hashed without `funding` and `fundingPaid` (the corpus runs with funding off; the test
 * checks they are 0).
 */
export interface GoldenFingerprint {
  trades: number;
  equityPoints: number;
  exitReasons: Record<string, number>;
  finalEquity: number;
  sha256: string;
}

function withoutFunding(metrics: BacktestResult['metrics']) {
  const { fundingPaid: _paid, perSymbol, ...rest } = metrics;
  return { ...rest, perSymbol: Object.fromEntries(Object.entries(perSymbol).map(([s, { fundingPaid: _p, ...m }]) => [s, m])) };
}

export function fingerprintResult(result: BacktestResult): GoldenFingerprint {
  const hash = createHash('sha256');
  hash.update(Buffer.from(result.series.times.buffer, result.series.times.byteOffset, result.series.times.byteLength));
  hash.update(Buffer.from(result.series.equity.buffer, result.series.equity.byteOffset, result.series.equity.byteLength));
  hash.update(JSON.stringify(result.trades.map(({ funding: _funding, ...trade }) => trade)));
  hash.update(JSON.stringify(withoutFunding(result.metrics)));
  const exitReasons: Record<string, number> = {};
  for (const t of result.trades) {
    const reason = (t as { exitReason?: string }).exitReason ?? 'none';
    exitReasons[reason] = (exitReasons[reason] ?? 0) + 1;
  }
  return {
    trades: result.trades.length,
    equityPoints: result.series.equity.length,
    exitReasons,
    finalEquity: result.series.equity[result.series.equity.length - 1] ?? Number.NaN,
    sha256: hash.digest('hex'),
  };
}

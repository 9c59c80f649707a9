import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { createSandboxPool } from '../backtests/engine/backtest-pool.js';
import type { BacktestResult } from '../backtests/engine/build-result.js';
import { createStratbox, type Stratbox } from '../create-stratbox.js';
import { StratboxError } from '../errors/stratbox-error.js';
import { allocateSeries } from '../market-data/candle-series.js';
import { createSilentLogger } from '../ports/logger.js';
import type { CandleSeries, MarketData } from '../ports/market-data.js';
import type { OrderRecord, Store } from '../ports/store.js';
import { createMemoryStore } from '../testing/memory-store.js';
import { createCandlePriceSource } from './candle-price-source.js';
import { createExchangeClientPool } from './exchange-client-pool.js';
import { newClientOrderId } from './client-order-id.js';
import type { CreateOrderRequest } from '../ports/exchange-gateway.js';
import type { CandleInput } from '../backtests/engine/backtest-job.js';
import { createPaperGateway, type PaperFundingEvent } from './paper-gateway.js';

/*
 * Parity of the paper exchange with the backtest (docs/backtest-model.md, "Paper and live
 * trading"): one strategy, run (a) as a backtest in the real sandbox pool and (b) as a live
 * deployment on the paper exchange through createStratbox, over the same recorded candle stream
 * and funding events, makes the same fills (prices, quantities), pays the same fees and funding,
 * and ends with the same equity, to 1e-9.
 *
 * The deployment is driven at clock speed: the test's clock moves to the close of each candle in
 * turn and waits for the deployment's poll to finish with it, so every candle reaches onCandle on
 * time, as on a server. The paper exchange reads its price from the candles (the close of the
 * last closed one, which in this stream is the next candle's open: the price a backtest fills a
 * market order at). The stream was recorded once from the synthetic source (06:50 to 12:00 UTC)
 * and is kept as a file, so the test does not move when the generator does.
 */

const BTC = 'BTC/USDT:USDT';
const MINUTE = 60_000;
const FIXTURE = new URL('./fixtures/recorded-btc-usdt-1m.csv', import.meta.url);
/** First traded candle; the ones before are history (warm-up). */
const START = Date.parse('2026-03-02T07:00:00.000Z');
const LEVERAGE = 2;
const SLIPPAGE = 0.0005;
const INITIAL = 10_000;
/** Hand-picked funding events, both signs, none at the end of the stream (see the documented differences). */
const FUNDING: PaperFundingEvent[] = [
  { time: Date.parse('2026-03-02T07:30:00.000Z'), rate: 0.0004 },
  { time: Date.parse('2026-03-02T08:30:00.000Z'), rate: -0.0003 },
  { time: Date.parse('2026-03-02T09:30:00.000Z'), rate: 0.0006 },
  { time: Date.parse('2026-03-02T10:30:00.000Z'), rate: 0.0002 },
  { time: Date.parse('2026-03-02T11:30:00.000Z'), rate: -0.0005 },
];

function readStream(): CandleSeries {
  const rows = readFileSync(FIXTURE, 'utf8').trim().split('\n').slice(1);
  const series = allocateSeries(BTC, '1m', rows.length);
  rows.forEach((row, i) => {
    const [time, open, high, low, close, volume] = row.split(',');
    series.time[i] = Date.parse(time!);
    series.open[i] = Number(open);
    series.high[i] = Number(high);
    series.low[i] = Number(low);
    series.close[i] = Number(close);
    series.volume[i] = Number(volume);
  });
  return series;
}

const stream = readStream();
const LAST = stream.time[stream.length - 1]!;
/** The strategy stops opening trades here and is flat by the end. */
const UNTIL = LAST - 10 * MINUTE;

/**
 * Market orders (opening, adding, partly closing, flipping), a limit order the next open trades
 * through (it fills at that open, maker fee), `ctx.close`, and every fill logged as JSON.
 */
const SOURCE = `
export const meta = { timeframe: '1m' };
let n = 0;
export function onCandle(ctx, c) {
  n++;
  const p = ctx.position(c.symbol);
  if (c.time >= ${UNTIL}) {
    if (p) ctx.close(c.symbol);
    return;
  }
  if (n % 4 !== 0) return;
  const step = (n / 4) % 6;
  if (step === 1) ctx.buy(c.symbol, { quantity: 20 });
  else if (step === 2) ctx.buy(c.symbol, { quantity: 10 });
  else if (step === 3) ctx.sell(c.symbol, { quantity: c.close > c.open ? 15 : 50 });
  else if (step === 4) ctx.buy(c.symbol, { type: 'limit', price: c.close * 1.001, quantity: 12 });
  else if (step === 5) ctx.close(c.symbol);
  else if (!p) ctx.sell(c.symbol, { quantity: 25 });
}
export function onOrder(ctx, e) {
  ctx.log(JSON.stringify({ time: e.time, side: e.side, type: e.type, status: e.status, quantity: e.quantity, price: e.price, fee: e.fee }));
}
`;

interface Fill {
  time: number;
  side: 'buy' | 'sell';
  type: string;
  status: string;
  quantity: number;
  price: number;
  fee: number;
}

/** The recorded stream as market data: a day's candles, whatever the clock (the deployment and the price source keep to the closed ones). */
const recorded: MarketData = {
  async getCandles({ symbol, timeframe, startDate, endDate }) {
    if (symbol !== BTC || timeframe !== '1m') throw new StratboxError('NOT_FOUND', `No recorded candles of ${symbol} ${timeframe}`);
    const from = Date.parse(`${startDate}T00:00:00.000Z`);
    const to = Date.parse(`${endDate}T00:00:00.000Z`) + 86_400_000;
    const keep = [...stream.time.keys()].filter((i) => stream.time[i]! >= from && stream.time[i]! < to);
    if (keep.length === 0) throw new StratboxError('NOT_FOUND', `No recorded candles of ${symbol} for ${startDate}..${endDate}`);
    const series = allocateSeries(BTC, '1m', keep.length);
    keep.forEach((k, i) => {
      for (const column of ['time', 'open', 'high', 'low', 'close', 'volume'] as const) series[column][i] = stream[column][k]!;
    });
    return { source: 'recorded', series };
  },
};

const close = (a: number, b: number) => Math.abs(a - b) <= 1e-9;
const sum = (values: number[]) => values.reduce((s, v) => s + v, 0);

const pool = createSandboxPool({ size: 1, cpuTimeMs: 60_000 });

function runBacktest(source = SOURCE, candles: CandleSeries = stream): Promise<BacktestResult> {
  return pool.runBacktest({
    source,
    candles: { [BTC]: candles },
    startTime: START,
    leverage: LEVERAGE,
    slippage: SLIPPAGE,
    initialCapital: INITIAL,
    marketType: 'LINEAR',
    funding: { [BTC]: { time: FUNDING.map((f) => f.time), rate: FUNDING.map((f) => f.rate) } },
  });
}

async function waitFor(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 30_000) {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

/** The deployment on the paper exchange, driven candle by candle; its fills as onOrder saw them, its orders, and the paper account's final equity. */
async function runOnPaper(stratboxes: Stratbox[], source = SOURCE) {
  const now = { ms: START };
  const clock = { now: () => new Date(now.ms) };
  const base = createMemoryStore();
  // Every poll of a deployment starts by reading it. While `holding`, that read waits at a gate
  // (`parked`): a poll parked there has not started, and the one before it has finished. The
  // clock only moves while a poll is parked, so no poll ever straddles a candle's close (a
  // paper market order fills at the price of the clock's time, as on a server).
  let holding = false;
  let parked: (() => void) | null = null;
  const store: Store = {
    ...base,
    deployments: {
      ...base.deployments,
      findById: async (...args) => {
        if (holding) await new Promise<void>((resolve) => (parked = resolve));
        return base.deployments.findById(...args);
      },
    },
  };
  const exchanges = createExchangeClientPool({
    clock,
    paper: {
      prices: createCandlePriceSource({ marketData: recorded, clock }),
      funding: (symbol, from, to) => (symbol === BTC ? FUNDING.filter((f) => f.time > from && f.time <= to) : []),
      clock,
      leverage: LEVERAGE,
      slippage: SLIPPAGE,
      initialBalance: INITIAL,
    },
  });
  const stratbox = createStratbox({
    store,
    clock,
    logger: createSilentLogger(),
    marketData: recorded,
    workerConcurrency: 0,
    deployments: { pollIntervalMs: 1, exchanges },
  });
  stratboxes.push(stratbox);
  const { userId } = await stratbox.users.createUser('parity');
  const strategy = await stratbox.strategies.create(userId, { name: 'parity', description: '', source, marketType: 'LINEAR' });
  const credential = await stratbox.credentials.create(userId, { exchange: 'paper', label: 'paper' });
  const deployment = await stratbox.deployments.create(userId, { strategyId: strategy.id, credentialId: credential.id, symbols: [BTC], params: {} });
  await waitFor('the deployment to run', async () => (await base.deployments.findById(userId, deployment.id))?.status === 'running');

  // To the close of every candle from START on, one at a time: each poll hands the candle that just closed to onCandle.
  holding = true;
  await waitFor('a poll to wait at its start', () => parked !== null);
  for (let i = stream.time.indexOf(START); i < stream.length; i++) {
    now.ms = stream.time[i]! + MINUTE;
    const release = parked!;
    parked = null;
    release();
    await waitFor(`the poll at ${new Date(now.ms).toISOString()} to run whole`, () => parked !== null);
  }
  holding = false;
  (parked as (() => void) | null)?.();
  const stopped = await stratbox.deployments.stop(userId, deployment.id);
  expect(stopped.status).toBe('stopped');

  const logs = await base.deploymentLogs.list(userId, deployment.id, { limit: 10_000 });
  const failures = logs.filter((l) => l.level !== 'info');
  expect(failures).toEqual([]);
  const fills = logs.filter((l) => l.message.startsWith('{')).map((l) => JSON.parse(l.message) as Fill);
  const orders: OrderRecord[] = (await base.orders.listByDeployment(userId, deployment.id, { limit: 10_000 })).reverse();
  const gateway = await exchanges.acquire({ id: credential.id, exchange: 'paper', testnet: false, secrets: { apiKey: '', secret: '' } });
  const balance = await gateway.fetchBalance();
  const positions = await gateway.fetchPositions([BTC]);
  exchanges.release(credential.id);
  return { fills, logs, orders, equity: balance['USDT']!.total, positions };
}

describe('paper exchange and backtest parity', () => {
  const stratboxes: Stratbox[] = [];
  afterAll(async () => {
    for (const s of stratboxes) await s.close();
    await pool.close();
  });

  it('makes the same fills, fees, funding and final equity over one recorded candle stream', async () => {
    const backtest = await runBacktest();
    const paper = await runOnPaper(stratboxes);
    const backtestFills = backtest.logs.map((l) => JSON.parse(l.message) as Fill);

    // The same fills, one for one: time, side, type (market and limit), quantity, price and fee.
    expect(backtestFills.length).toBeGreaterThan(40);
    expect(new Set(backtestFills.map((f) => f.type))).toEqual(new Set(['market', 'limit']));
    expect(backtestFills.every((f) => f.status === 'filled')).toBe(true);
    expect(paper.fills.map((f) => [f.time, f.side, f.type, f.status])).toEqual(backtestFills.map((f) => [f.time, f.side, f.type, f.status]));
    paper.fills.forEach((f, i) => {
      const b = backtestFills[i]!;
      expect(
        close(f.quantity, b.quantity) && close(f.price, b.price) && close(f.fee, b.fee),
        `fill ${i}: paper ${JSON.stringify(f)}, backtest ${JSON.stringify(b)}`,
      ).toBe(true);
    });
    // The paper exchange's own order records say the same (the onOrder events above are built from them).
    const filled = paper.orders.filter((o) => o.status === 'filled');
    expect(filled.map((o) => [o.filledQuantity, o.averagePrice, o.fee])).toEqual(paper.fills.map((f) => [f.quantity, f.price, f.fee]));

    // Flat at the end on both sides: no end-of-test close in the backtest, nothing for the stop to close on paper.
    expect(backtest.trades.some((t) => t.exitReason === 'end')).toBe(false);
    expect(paper.positions).toEqual([]);
    expect(paper.orders.filter((o) => o.status !== 'filled')).toEqual([]);

    // Fees: every fill's fee, summed, against every trade's fees.
    const paperFees = sum(filled.map((o) => o.fee));
    expect(close(paperFees, sum(backtest.trades.map((t) => t.fees)))).toBe(true);

    // Funding: a trade's pnl is its gross P&L less its fees and funding; on paper, what the
    // wallet holds beyond the fills' cash flow and fees (flat at the end, the cash flow is the gross P&L).
    const backtestFunding = sum(backtest.trades.map((t) => (t.side === 'long' ? 1 : -1) * t.quantity * (t.exitPrice - t.entryPrice) - t.fees - t.pnl));
    const cashFlow = sum(filled.map((o) => (o.side === 'sell' ? 1 : -1) * o.filledQuantity * o.averagePrice!));
    const paperFunding = INITIAL + cashFlow - paperFees - paper.equity;
    expect(Math.abs(backtestFunding)).toBeGreaterThan(0.01);
    expect(close(paperFunding, backtestFunding)).toBe(true);

    // Final equity.
    const backtestEquity = backtest.series.equity[backtest.series.equity.length - 1]!;
    expect(close(paper.equity, backtestEquity), `paper ${paper.equity}, backtest ${backtestEquity}`).toBe(true);
  }, 180_000);

  it('sees the same history, higher-timeframe candles and indicators live as in the backtest, never a candle that has not closed', async () => {
    // warmup 10: the deployment starts with the 10 candles before START (it asks for 15), as the backtest's history has them.
    const source = `export const meta = { timeframe: '1m', timeframes: ['5m', '15m'], warmup: 10 };
      export function onCandle(ctx, c) {
        const h = ctx.history(c.symbol, 3);
        const h5 = ctx.history(c.symbol, 2, { timeframe: '5m' });
        const h15 = ctx.history(c.symbol, 1, { timeframe: '15m' });
        ctx.log(JSON.stringify({
          t: c.time, h: Array.from(h.time), hc: Array.from(h.close), h5: Array.from(h5.time), h5c: Array.from(h5.close), h15: Array.from(h15.time),
          sma5: ctx.indicators.sma(c.symbol, 3, { timeframe: '5m' }), don: ctx.indicators.donchian(c.symbol, 4).upper,
        }));
      }`;
    const traded = stream;
    const backtest = await runBacktest(source);
    const paper = await runOnPaper(stratboxes, source);
    const live = paper.logs.filter((l) => l.message.startsWith('{')).map((l) => l.message);
    expect(live.length).toBe(traded.length - traded.time.indexOf(START));
    expect(live).toEqual(backtest.logs.map((l) => l.message));

    for (const line of live) {
      const r = JSON.parse(line) as { t: number; h: number[]; hc: number[]; h5: number[]; h5c: number[]; h15: number[]; sma5: number | null };
      const closed = [...traded.time.keys()].filter((i) => traded.time[i]! <= r.t);
      expect(r.h).toEqual(closed.slice(-3).map((i) => traded.time[i]));
      expect(r.hc).toEqual(closed.slice(-3).map((i) => traded.close[i]));
      // 5m candles whose five minutes have all closed, built here from the stream.
      const buckets5 = [...new Set(closed.map((i) => Math.floor(traded.time[i]! / (5 * MINUTE)) * 5 * MINUTE))].filter((b) => b + 5 * MINUTE <= r.t + MINUTE);
      expect(r.h5).toEqual(buckets5.slice(-2));
      const lastClose = (b: number) => traded.close[closed.filter((i) => traded.time[i]! < b + 5 * MINUTE).at(-1)!];
      expect(r.h5c).toEqual(buckets5.slice(-2).map(lastClose));
      for (const t of r.h15) expect(t + 15 * MINUTE).toBeLessThanOrEqual(r.t + MINUTE);
      if (buckets5.length >= 3) expect(r.sma5).toBeCloseTo((lastClose(buckets5.at(-1)!)! + lastClose(buckets5.at(-2)!)! + lastClose(buckets5.at(-3)!)!) / 3, 9);
      else expect(r.sma5).toBeNull();
    }
  }, 180_000);

  /*
   * The differences docs/backtest-model.md ("Paper and live trading") lists and the test above
   * steers clear of, each shown on a few hand-made candles: a backtest in the sandbox pool beside
   * a paper exchange read as a deployment reads it, at each candle's close, placing the orders
   * decided at that close.
   */
  describe('where paper and backtest differ, as documented', () => {
    const T = Date.parse('2026-03-02T00:00:00.000Z');
    const candle = (i: number, open: number, high: number, low: number, closePrice: number): CandleInput => ({
      time: T + i * MINUTE,
      open,
      high,
      low,
      close: closePrice,
      volume: 1,
    });
    const LOG_FILLS = 'export function onOrder(ctx, e) { ctx.log(JSON.stringify({ type: e.type, status: e.status, quantity: e.quantity, price: e.price })); }';

    /** The paper exchange driven at the candles' closes; `after[i]` are the orders placed once candle i closed. */
    async function onPaper(
      candles: CandleInput[],
      options: { leverage: number; slippage: number; funding?: PaperFundingEvent[] },
      after: Record<number, Array<Omit<CreateOrderRequest, 'clientOrderId'>>>,
    ) {
      const now = { ms: T };
      const price = { value: candles[0]!.close };
      const paper = createPaperGateway({
        prices: () => price.value,
        clock: { now: () => new Date(now.ms) },
        leverage: options.leverage,
        slippage: options.slippage,
        funding: (_symbol, from, to) => (options.funding ?? []).filter((f) => f.time > from && f.time <= to),
      });
      const placed = [];
      for (const [i, c] of candles.entries()) {
        now.ms = (c.time as number) + MINUTE;
        price.value = c.close;
        await paper.fetchBalance();
        for (const request of after[i] ?? []) placed.push(await paper.createOrder({ clientOrderId: newClientOrderId(), ...request }));
      }
      return { paper, placed };
    }

    it('paper sees only the prices it reads: a wick through a limit or the liquidation price fills and liquidates in the backtest, not on paper', async () => {
      const candles = [candle(0, 100, 100, 100, 100), candle(1, 100, 100, 94, 100), candle(2, 100, 100, 89, 100), candle(3, 100, 100, 100, 100)];
      const source = `export function onCandle(ctx, c) { if (c.time === ${T}) { ctx.buy(c.symbol, { quantity: 10 }); ctx.buy(c.symbol, { type: 'limit', price: 95, quantity: 1 }); } }\n${LOG_FILLS}`;
      const backtest = await pool.runBacktest({ source, candles: { [BTC]: candles }, leverage: 10 });
      const events = backtest.logs.map((l) => JSON.parse(l.message) as Fill);
      // The limit filled on candle 1's low (94 < 95); the position, 11 at (1,000 + 95) / 11, was liquidated on candle 2's low (89).
      expect(events.map((e) => [e.type, e.quantity, e.price])).toEqual([
        ['market', 10, 100],
        ['limit', 1, 95],
        ['liquidation', 11, (1_095 / 11) * (1 - 1 / 10 + 0.005)],
      ]);

      const { paper, placed } = await onPaper(
        candles,
        { leverage: 10, slippage: 0 },
        {
          0: [
            { symbol: BTC, side: 'buy', type: 'market', quantity: 10 },
            { symbol: BTC, side: 'buy', type: 'limit', price: 95, quantity: 1 },
          ],
        },
      );
      // Every read was 100: the limit still rests, and the position of 10 at 100 was never liquidated.
      expect((await paper.fetchOrder(placed[1]!.exchangeOrderId, BTC)).status).toBe('open');
      expect(await paper.fetchPositions([BTC])).toMatchObject([{ side: 'long', quantity: 10, entryPrice: 100, liquidationPrice: 90.5 }]);
    }, 60_000);

    it('a market order fills at the price read (the last close), the backtest at the next open; the end closes without slippage in the backtest, with it on paper; funding due in the last candle only on paper', async () => {
      const candles = [candle(0, 100, 100, 100, 100), candle(1, 102, 103, 101, 102), candle(2, 102, 104, 102, 104)];
      const fundingEvent = { time: T + 2 * MINUTE + 30_000, rate: 0.001 };
      // Buys at the first close, and sells 4 at the last close, an order a backtest never fills.
      const source = `export function onCandle(ctx, c) {
        if (c.time === ${T}) ctx.buy(c.symbol, { quantity: 10 });
        if (c.time === ${T + 2 * MINUTE}) ctx.sell(c.symbol, { quantity: 4 });
      }\n${LOG_FILLS}`;
      const backtest = await pool.runBacktest({
        source,
        candles: { [BTC]: candles },
        slippage: 0.001,
        funding: { [BTC]: { time: [fundingEvent.time], rate: [fundingEvent.rate] } },
      });
      // One trade: entry at candle 1's open (102, a gap above candle 0's close) plus slippage; the
      // sell of the last close dropped; the 10 closed at the last close, 104, without slippage.
      expect(backtest.trades).toHaveLength(1);
      const [trade] = backtest.trades;
      expect(trade).toMatchObject({ exitReason: 'end', quantity: 10, exitPrice: 104 });
      expect(trade!.entryPrice).toBeCloseTo(102 * 1.001, 9);
      // No funding: the event falls after the last candle's open.
      expect(trade!.pnl).toBeCloseTo(10 * (104 - 102.102) - trade!.fees, 9);

      const { paper, placed } = await onPaper(
        candles,
        { leverage: 1, slippage: 0.001, funding: [fundingEvent] },
        { 0: [{ symbol: BTC, side: 'buy', type: 'market', quantity: 10 }], 2: [{ symbol: BTC, side: 'sell', type: 'market', quantity: 4 }] },
      );
      // The price read when the buy arrived was candle 0's close, 100.
      expect(placed[0]!.averagePrice).toBeCloseTo(100 * 1.001, 9);
      // The sell of the last close was sent and filled at the price read, 104, less slippage.
      expect(placed[1]).toMatchObject({ status: 'filled', filledQuantity: 4 });
      expect(placed[1]!.averagePrice).toBeCloseTo(104 * 0.999, 9);
      // The funding event of the last candle was paid at that read, on the 10 held before the sell:
      // 10 x 104 x 0.001. Equity: entry fee 10 x 100.1 x 0.0005, the sell's profit and fee, 6 left at 104.
      const equity = 10_000 - 10 * 100.1 * 0.0005 - 10 * 104 * 0.001 + 4 * (103.896 - 100.1) - placed[1]!.fee + 6 * (104 - 100.1);
      expect((await paper.fetchBalance())['USDT']!.total).toBeCloseTo(equity, 9);
      // A deployment's stop closes with a market order: at the price read, 104, less slippage.
      const exit = await paper.createOrder({ clientOrderId: newClientOrderId(), symbol: BTC, side: 'sell', type: 'market', quantity: 6, reduceOnly: true });
      expect(exit.averagePrice).toBeCloseTo(104 * 0.999, 9);
    }, 60_000);
  });
});

import { describe, expect, it } from 'vitest';
import { StratboxError } from '../errors/stratbox-error.js';
import type { MarketData } from '../ports/market-data.js';
import { createSyntheticMarketData, generateSyntheticSeries } from '../market-data/synthetic-market-data.js';
import { createCandlePriceSource } from './candle-price-source.js';
import { createPaperGateway } from './paper-gateway.js';
import { newClientOrderId } from './client-order-id.js';

const BTC = 'BTC/USDT:USDT';

describe('createCandlePriceSource', () => {
  it('prices a symbol at the close of its last closed candle, one candle request per period', async () => {
    let now = Date.parse('2026-03-04T10:20:30.000Z');
    const synthetic = createSyntheticMarketData();
    let requests = 0;
    const counted: MarketData = { getCandles: (request) => (requests++, synthetic.getCandles(request)) };
    const prices = createCandlePriceSource({ marketData: counted, clock: { now: () => new Date(now) } });
    const at = (openTime: number) => generateSyntheticSeries(BTC, '1m', openTime, openTime + 60_000).close[0];
    expect(await prices(BTC)).toBe(at(Date.parse('2026-03-04T10:19:00.000Z')));
    now += 20_000;
    expect(await prices(BTC)).toBe(at(Date.parse('2026-03-04T10:19:00.000Z')));
    expect(requests).toBe(1);
    now += 30_000; // 10:21:20: the 10:20 candle has closed
    expect(await prices(BTC)).toBe(at(Date.parse('2026-03-04T10:20:00.000Z')));
    expect(requests).toBe(2);
    // Just after midnight the last closed candle is yesterday's last one.
    now = Date.parse('2026-03-05T00:00:10.000Z');
    expect(await prices(BTC)).toBe(at(Date.parse('2026-03-04T23:59:00.000Z')));
  });

  it('has no price for a symbol the market data does not have', async () => {
    const none: MarketData = {
      getCandles: async () => {
        throw new StratboxError('NOT_FOUND', 'no such symbol');
      },
    };
    expect(await createCandlePriceSource({ marketData: none, clock: { now: () => new Date() } })('NOPE/USDT:USDT')).toBeNull();
  });

  it('lets the paper exchange trade offline on synthetic prices', async () => {
    const clock = { now: () => new Date('2026-03-04T10:20:30.000Z') };
    const paper = createPaperGateway({ prices: createCandlePriceSource({ marketData: createSyntheticMarketData(), clock }), clock });
    const order = await paper.createOrder({ clientOrderId: newClientOrderId(), symbol: BTC, side: 'buy', type: 'market', quantity: 0.001 });
    expect(order.status).toBe('filled');
    expect(order.averagePrice).toBeGreaterThan(0);
  });
});

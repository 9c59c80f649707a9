import { describe, expect, it } from 'vitest';
import type { CreateOrderRequest } from '../ports/exchange-gateway.js';
import { createMemoryStore } from '../testing/memory-store.js';
import { newClientOrderId } from './client-order-id.js';
import { createPaperGateway, type PaperFundingEvent, type PaperGatewayOptions } from './paper-gateway.js';
import { createStorePaperPersistence } from './paper-persistence.js';

/*
 * Funding on the paper exchange, as the backtest charges it (docs/backtest-model.md): at each
 * event an open position pays quantity x price x rate, the price being the one read when the
 * event is paid; a long pays a positive rate, a short receives it. No fees here, so every cent
 * of the wallet's change is funding.
 */

const BTC = 'BTC/USDT:USDT';
const ETH = 'ETH/USDT:USDT';
const T0 = Date.parse('2026-03-01T00:00:00.000Z');
const HOUR = 3_600_000;

/** A paper exchange on a clock and price table the test moves, with funding every hour at the rates of `rates`. */
function setup(rates: Record<string, Record<number, number>>, overrides: Partial<PaperGatewayOptions> = {}) {
  const table: Record<string, number> = { [BTC]: 100, [ETH]: 10 };
  const time = { now: T0 };
  const asked: Array<[string, number, number]> = [];
  const paper = createPaperGateway({
    prices: (symbol) => table[symbol],
    fees: { maker: 0, taker: 0 },
    initialBalance: 10_000,
    clock: { now: () => new Date(time.now) },
    funding: (symbol, from, to) => {
      asked.push([symbol, from, to]);
      const events: PaperFundingEvent[] = [];
      for (const [hour, rate] of Object.entries(rates[symbol] ?? {})) {
        const at = T0 + Number(hour) * HOUR;
        if (at > from && at <= to) events.push({ time: at, rate });
      }
      return events;
    },
    ...overrides,
  });
  const order = (request: Omit<CreateOrderRequest, 'clientOrderId'>) => paper.createOrder({ clientOrderId: newClientOrderId(), ...request });
  const wallet = async () => {
    const usdt = (await paper.fetchBalance())['USDT']!;
    const unrealized = (await paper.fetchPositions([BTC, ETH])).reduce((sum, p) => sum + p.unrealizedPnl!, 0);
    return usdt.total - unrealized;
  };
  return { paper, table, time, order, wallet, asked };
}

describe('paper exchange funding', () => {
  it('charges a long and pays a short at the price read when the event is due, once', async () => {
    const { table, time, order, wallet } = setup({ [BTC]: { 1: 0.001 }, [ETH]: { 1: 0.001 } });
    await order({ symbol: BTC, side: 'buy', type: 'market', quantity: 2 });
    await order({ symbol: ETH, side: 'sell', type: 'market', quantity: 10 });
    time.now = T0 + HOUR - 1;
    expect(await wallet()).toBe(10_000);

    time.now = T0 + HOUR + 5_000;
    table[BTC] = 110;
    table[ETH] = 12;
    // The long pays 2 x 110 x 0.001 = 0.22; the short receives 10 x 12 x 0.001 = 0.12.
    expect(await wallet()).toBeCloseTo(10_000 - 0.22 + 0.12, 9);
    // Later calls do not pay the same event again.
    time.now += HOUR / 2;
    expect(await wallet()).toBeCloseTo(9_999.9, 9);
  });

  it('pays a negative rate to the long, and every event that passed between two calls at the price read then', async () => {
    const { table, time, order, wallet } = setup({ [BTC]: { 1: -0.0005, 2: 0.002, 3: 0.001 } });
    await order({ symbol: BTC, side: 'buy', type: 'market', quantity: 4 });
    time.now = T0 + 2 * HOUR; // events at 1 h and 2 h are due
    table[BTC] = 50;
    // 4 x 50 x (-0.0005) = -0.1 (received), then 4 x 50 x 0.002 = 0.4.
    expect(await wallet()).toBeCloseTo(10_000 + 0.1 - 0.4, 9);
  });

  it('charges nothing to a position opened at the event time or after it, nor to a closed one', async () => {
    const { table, time, order, wallet } = setup({ [BTC]: { 1: 0.01, 2: 0.01 } });
    time.now = T0 + HOUR; // the event at 1 h is due as the order arrives: the position opens after it
    await order({ symbol: BTC, side: 'buy', type: 'market', quantity: 1 });
    expect(await wallet()).toBe(10_000);
    time.now = T0 + 1.5 * HOUR;
    table[BTC] = 120;
    await order({ symbol: BTC, side: 'sell', type: 'market', quantity: 1 });
    time.now = T0 + 3 * HOUR;
    // +20 from the trade; no funding: the position was closed before the event at 2 h.
    expect(await wallet()).toBeCloseTo(10_020, 9);
  });

  it('charges a position a resting order opened between two reads for the events between them', async () => {
    const { table, time, order, wallet } = setup({ [BTC]: { 1: 0.01 } });
    await order({ symbol: BTC, side: 'buy', type: 'limit', quantity: 1, price: 95 });
    time.now = T0 + HOUR;
    table[BTC] = 90; // the limit filled at 95 in the stretch that ends at the event
    // 1 x 90 x 0.01 = 0.9.
    expect(await wallet()).toBeCloseTo(10_000 - 0.9, 9);
  });

  it('pays later when the funding source fails, and never asks it about flat symbols', async () => {
    let down = true;
    const asked: string[] = [];
    const { time, order, wallet } = setup(
      {},
      {
        funding: (symbol, from, to) => {
          asked.push(symbol);
          if (down) throw new Error('rates unavailable');
          const at = T0 + HOUR;
          return at > from && at <= to ? [{ time: at, rate: 0.01 }] : [];
        },
      },
    );
    time.now = T0 + HOUR / 2;
    expect(await wallet()).toBe(10_000);
    expect(asked).toEqual([]);
    await order({ symbol: BTC, side: 'buy', type: 'market', quantity: 1 });
    time.now = T0 + 2 * HOUR;
    expect(await wallet()).toBe(10_000);
    expect(asked.length).toBeGreaterThan(0);
    expect(new Set(asked)).toEqual(new Set([BTC]));
    down = false;
    // 1 x 100 x 0.01, the event at 1 h.
    expect(await wallet()).toBeCloseTo(10_000 - 1, 9);
  });

  it('keeps the time of the last funding paid in the Store: another instance does not pay it again', async () => {
    const store = createMemoryStore();
    const clock = { now: () => new Date(T0) };
    const persistence = createStorePaperPersistence(store, clock, 'cred_paper', 'LINEAR');
    const rates = { [BTC]: { 1: 0.001 } };
    const a = setup(rates, { persistence });
    await a.order({ symbol: BTC, side: 'buy', type: 'market', quantity: 10 });
    a.time.now = T0 + HOUR;
    expect(await a.wallet()).toBeCloseTo(10_000 - 1, 9);

    const b = setup(rates, { persistence });
    b.time.now = T0 + 2 * HOUR;
    expect(await b.wallet()).toBeCloseTo(10_000 - 1, 9);
    expect(await a.wallet()).toBeCloseTo(10_000 - 1, 9);
  });

  it('has no funding on SPOT', async () => {
    const { paper, time, asked } = setup({ 'BTC/USDT': { 1: 0.5 } }, { marketType: 'SPOT', prices: () => 100 });
    await paper.createOrder({ clientOrderId: newClientOrderId(), symbol: 'BTC/USDT', side: 'buy', type: 'market', quantity: 1 });
    time.now = T0 + 2 * HOUR;
    expect((await paper.fetchBalance())['USDT']!.total).toBe(9_900);
    expect(asked).toEqual([]);
  });
});

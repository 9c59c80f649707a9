import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStratbox, type Stratbox } from './create-stratbox.js';
import { createSilentLogger } from './ports/logger.js';
import { createMemoryStore } from './testing/memory-store.js';

/**
 * Embedders call services with the contract's input types, as an HTTP client sends bodies:
 * defaulted fields may be left out, and a wrong body is VALIDATION_FAILED with the same
 * `body.*` details HTTP gives, never a TypeError from inside a service.
 */
describe('service methods take the contract input types', () => {
  let stratbox: Stratbox;
  let userId: string;
  const SOURCE = `export const meta = { timeframe: '1h' };\nexport function onCandle() {}`;

  beforeAll(async () => {
    // workerConcurrency 0: backtests are queued, never run, so no sandbox child is needed for them
    stratbox = createStratbox({ store: createMemoryStore(), logger: createSilentLogger(), sandbox: { size: 1 }, workerConcurrency: 0 });
    ({ userId } = await stratbox.users.createUser('embedder'));
  });
  afterAll(() => stratbox.close());

  async function rejection(promise: Promise<unknown>) {
    const error = await promise.then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).not.toBeInstanceOf(TypeError);
    return error as { code: string; status: number; details: { path: string; message: string }[] };
  }

  it('fills the defaults of a strategy, a backtest and a listing', { timeout: 60_000 }, async () => {
    const strategy = await stratbox.strategies.create(userId, { name: 'Minimal', source: SOURCE });
    expect(strategy).toMatchObject({ description: '', marketType: 'LINEAR', version: 1 });

    const backtest = await stratbox.backtests.create(userId, {
      strategyId: strategy.id,
      symbols: ['BTC/USDT:USDT'],
      startDate: '2025-01-01',
      endDate: '2025-01-03',
    });
    expect(backtest).toMatchObject({
      status: 'queued',
      timeframe: '1h',
      marketType: 'LINEAR',
      leverage: 1,
      slippage: 0,
      initialCapital: 10_000,
      fees: { maker: 0.0002, taker: 0.0005 },
      params: {},
    });

    const listing = await stratbox.marketplace.listings.create(userId, { strategyId: strategy.id, name: '  Minimal  ', price: 0 });
    expect(listing).toMatchObject({ name: 'Minimal', description: '', tags: [] });
  });

  it('answers a wrong body with VALIDATION_FAILED and the details HTTP gives', async () => {
    const missing = await rejection(stratbox.backtests.create(userId, { strategyId: 'str_nope' } as never));
    expect(missing).toMatchObject({ code: 'VALIDATION_FAILED', status: 400 });
    expect(missing.details.map((d) => d.path)).toEqual(expect.arrayContaining(['body.strategyId', 'body.symbols', 'body.startDate', 'body.endDate']));

    const typo = await rejection(stratbox.strategies.create(userId, { name: 'x', source: SOURCE, marketTyp: 'SPOT' } as never));
    expect(typo).toMatchObject({ code: 'VALIDATION_FAILED', details: [{ path: 'body', message: 'Unknown field: marketTyp' }] });

    // plain JavaScript passing nothing at all
    for (const call of [
      stratbox.strategies.create(userId, undefined as never),
      stratbox.strategies.update(userId, 'str_nope', null as never),
      stratbox.backtests.create(userId, null as never),
      stratbox.deployments.create(userId, undefined as never),
      stratbox.credentials.create(userId, undefined as never),
      stratbox.marketplace.listings.create(userId, undefined as never),
      stratbox.marketplace.listings.update(userId, 'lst_nope', {}),
      stratbox.marketplace.reviews.create(userId, 'lst_nope', { rating: 6, text: '' }),
      stratbox.marketplace.reviews.update(userId, 'lst_nope', 'rev_nope', undefined as never),
      stratbox.billing.subscriptions.checkout(userId, 'free' as never),
    ]) {
      expect(await rejection(call)).toMatchObject({ code: 'VALIDATION_FAILED', status: 400 });
    }
  });
});

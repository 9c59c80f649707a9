import { describe, expect, it } from 'vitest';
import { createSandboxPool } from './backtests/engine/backtest-pool.js';
import { createSandboxStrategyRunner } from './backtests/sandbox-strategy-runner.js';
import { createStratbox } from './create-stratbox.js';
import { createInProcessEventBus } from './events/in-process-event-bus.js';
import { createSilentLogger } from './ports/logger.js';
import { createMemoryStore } from './testing/memory-store.js';

describe('createStratbox close()', () => {
  it('closes every part even when one fails, the store last, reports the failure, and answers a second call the same', async () => {
    const store = createMemoryStore();
    const bus = createInProcessEventBus();
    const events = {
      ...bus,
      close: async () => {
        await bus.close();
        throw new Error('the bus would not close');
      },
    };
    const stratbox = createStratbox({ store, events, logger: createSilentLogger() });
    await stratbox.users.createUser('alice');

    const error = await stratbox.close().then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(AggregateError);
    expect((error as AggregateError).errors.map((e: Error) => e.message)).toEqual(['Closing the event bus failed: the bus would not close']);
    expect((error as AggregateError).message).toContain('the bus would not close');
    // The store, after the failing part, is closed too.
    await expect(store.users.findById('usr_any')).rejects.toThrow('Store is closed');
    // Idempotent: the same outcome, nothing closed twice.
    expect(
      await stratbox.close().then(
        () => null,
        (e: unknown) => e,
      ),
    ).toBe(error);
  });

  it('resolves when every part closes', async () => {
    const store = createMemoryStore();
    const stratbox = createStratbox({ store, logger: createSilentLogger() });
    await stratbox.close();
    await stratbox.close();
    await expect(store.users.findById('usr_any')).rejects.toThrow('Store is closed');
  });
});

describe('createStratbox strategy runner', () => {
  const SMA = `export const meta = { timeframe: '1h', params: { fast: { type: 'int', default: 10, min: 2 } } };
export function onCandle(ctx, c) {}`;
  // passes the host-side shape check: only running it in the sandbox finds the unknown meta field
  const BAD_META = `export const meta = { timeframe: '1h', speed: 3 };
export function onCandle(ctx, c) {}`;

  for (const name of ['strategyRunner', 'executor'] as const) {
    it(`checks strategies with the runner given as ${name}, and closes it`, { timeout: 60_000 }, async () => {
      const runner = createSandboxStrategyRunner(createSandboxPool({ size: 1 }));
      const stratbox = createStratbox({ logger: createSilentLogger(), ...(name === 'strategyRunner' ? { strategyRunner: runner } : { executor: runner }) });
      try {
        const { userId } = await stratbox.users.createUser('alice');
        await expect(stratbox.strategies.create(userId, { name: 'bad', source: BAD_META })).rejects.toMatchObject({
          code: 'VALIDATION_FAILED',
          details: [expect.objectContaining({ code: 'INVALID_STRATEGY' })],
        });
        const strategy = await stratbox.strategies.create(userId, { name: 'SMA', source: SMA });
        await expect(
          stratbox.backtests.create(userId, {
            strategyId: strategy.id,
            symbols: ['BTC/USDT:USDT'],
            startDate: '2025-01-01',
            endDate: '2025-01-02',
            params: { fast: '1' },
          }),
        ).rejects.toMatchObject({ code: 'VALIDATION_FAILED', status: 400 });
      } finally {
        await stratbox.close();
      }
      // close() closed the runner it was given
      await expect(runner.inspect(SMA)).rejects.toMatchObject({ code: 'POOL_CLOSED' });
    });
  }

  it('refuses two different runners under the new and the deprecated name', async () => {
    const one = createSandboxStrategyRunner(createSandboxPool({ size: 1 }));
    const other = createSandboxStrategyRunner(createSandboxPool({ size: 1 }));
    try {
      expect(() => createStratbox({ logger: createSilentLogger(), strategyRunner: one, executor: other })).toThrow(
        'createStratbox: give strategyRunner or its deprecated name executor, not both',
      );
    } finally {
      await Promise.all([one.close(), other.close()]);
    }
  });
});

import { describe, expect, it } from 'vitest';
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

import { StratboxClientError } from '@stratbox/client';
import { describe, expect, it } from 'vitest';
import { type ActionOptions, type ActionState, createActionRunner } from './use-action.js';

function holder(options?: ActionOptions) {
  let state: ActionState = { running: null, error: null };
  const run = createActionRunner((change) => {
    state = change(state);
  }, options);
  return { run, state: () => state };
}

/** A call the test settles by hand. */
function deferred() {
  let settle!: { resolve(): void; reject(error: unknown): void };
  const promise = new Promise<void>((resolve, reject) => {
    settle = { resolve, reject };
  });
  return { promise, ...settle };
}

const invalid = new StratboxClientError('VALIDATION_FAILED', 'Invalid body.label: too long', 400, [{ path: 'body.label', message: 'too long' }]);

describe('createActionRunner', () => {
  it('is busy while the work runs, then keeps what it threw as a readable error, which the next success clears', async () => {
    const action = holder();
    const call = deferred();
    const done = action.run(() => call.promise, 'save');
    expect(action.state()).toEqual({ running: 'save', error: null });
    call.reject(invalid);
    await expect(done).resolves.toBe(false);
    expect(action.state().running).toBeNull();
    expect(action.state().error).toMatchObject({ code: 'VALIDATION_FAILED', status: 400, fields: { label: ['too long'] } });

    await expect(action.run(async () => 'saved')).resolves.toBe(true);
    expect(action.state()).toEqual({ running: null, error: null });
  });

  it('clears the error as a run starts, unless asked to keep it until the outcome', async () => {
    const clearing = holder();
    await clearing.run(() => Promise.reject(invalid));
    const call = deferred();
    const done = clearing.run(() => call.promise);
    expect(clearing.state()).toEqual({ running: 'action', error: null });
    call.resolve();
    await done;

    const keeping = holder({ keepError: true });
    await keeping.run(() => Promise.reject(invalid));
    const again = deferred();
    const retried = keeping.run(() => again.promise);
    expect(keeping.state().running).toBe('action');
    expect(keeping.state().error?.code).toBe('VALIDATION_FAILED');
    again.resolve();
    await retried;
    expect(keeping.state().error).toBeNull();
  });

  it('lets the latest run decide: an earlier one that settles later changes nothing', async () => {
    const action = holder();
    const slow = deferred();
    const first = action.run(() => slow.promise, 'first');
    await action.run(async () => undefined, 'second');
    slow.reject(new Error('network down'));
    await expect(first).resolves.toBe(false);
    expect(action.state()).toEqual({ running: null, error: null });
  });
});

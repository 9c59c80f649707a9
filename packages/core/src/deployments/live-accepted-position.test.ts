import { afterEach, describe, expect, it } from 'vitest';
import { startLiveHarness, SYMBOL, type LiveHarness } from './live-faults-harness.js';

/*
 * A position its owner accepted at a restart (after a positionMismatch halt) stays accepted when
 * the service restarts: a fresh runner resuming the deployment reads it from the record
 * (`acceptedPositions`) instead of halting it again. The real runner, through the real ccxt
 * binanceusdm class against the Binance double; the clock moves by hand.
 */

const BUY_ONCE = `
export const meta = { timeframe: '1m' };
let sent = false;
export function onCandle(ctx, candle) {
  if (!sent && !ctx.position(candle.symbol)) { sent = true; ctx.buy(candle.symbol, { quantity: 0.01 }); }
}
`;

describe('a position accepted at a restart', () => {
  let h: LiveHarness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('survives a restart of the service: the resumed deployment stays running, and a restart that finds it explained clears it', async () => {
    h = await startLiveHarness(BUY_ONCE);
    const first = await h.runner();
    expect(await first.start()).toBeNull();
    h.clock.nextCandle();
    expect(await first.cycle()).toBeNull();
    expect(h.fake.position.amt).toBe('0.010');
    expect((await h.current()).acceptedPositions).toBeNull();

    // Someone buys 0.02 by hand: halted.
    h.fake.position = { amt: '0.030', entry: '40000' };
    h.clock.nextCandle();
    expect(await first.cycle()).toBeNull();
    expect((await h.current()).halt).toMatchObject({ reason: 'positionMismatch', value: 0.03 });

    // Its owner restarts it: the 0.02 its fills do not explain is accepted, and kept on the record.
    await first.halt();
    await h.store.deployments.transition(h.deployment.id, ['halted'], { status: 'starting', halt: null });
    const restarted = await h.runner();
    expect(await restarted.start()).toBeNull();
    expect((await h.current()).acceptedPositions).toEqual({ [SYMBOL]: 0.02 });
    h.clock.nextCandle();
    expect(await restarted.cycle()).toBeNull();
    expect((await h.current()).status).toBe('running');
    const runsBefore = (await h.current()).reconciliation!.runs;

    // The service restarts (the process is gone; another resumes the deployment, still `running`).
    await restarted.halt();
    const resumed = await h.runner();
    expect(resumed.deployment.status).toBe('running');
    expect(await resumed.start()).toBeNull();
    for (let i = 0; i < 2; i++) {
      h.clock.nextCandle();
      expect(await resumed.cycle()).toBeNull();
    }
    const after = await h.current();
    expect(after.reconciliation!.runs).toBe(runsBefore + 2);
    expect(after.halt ?? null).toBeNull();
    expect(after.status).toBe('running');

    // The hand-bought 0.02 is sold by hand again; a restart by the owner finds the fills explain the position and clears what was accepted.
    h.fake.position = { amt: '0.010', entry: '40000' };
    await resumed.halt();
    await h.store.deployments.transition(h.deployment.id, ['running'], { status: 'starting' });
    const cleared = await h.runner();
    expect(await cleared.start()).toBeNull();
    expect((await h.current()).acceptedPositions).toBeNull();
    h.clock.nextCandle();
    expect(await cleared.cycle()).toBeNull();
    expect((await h.current()).status).toBe('running');
  }, 90_000);
});

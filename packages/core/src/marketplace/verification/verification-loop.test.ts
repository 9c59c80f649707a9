import { afterEach, describe, expect, it } from 'vitest';
import { decodePoints } from './equity-points.js';
import { harness, listed, type Harness } from './test-fixtures.js';
import { createVerificationLoop, type VerificationLoop, type VerificationRound } from './verification-loop.js';

const HOUR = 3_600_000;
const open: Array<Harness | VerificationLoop> = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((h) => h.close()));
});

async function setup() {
  const h = await harness('2025-03-10T12:00:30.000Z', { backtestDays: 14 }, 2);
  open.push(h);
  const loop = () => {
    const l = createVerificationLoop(h.deps);
    open.unshift(l);
    return l;
  };
  return { h, loop };
}

describe('the verification loop', () => {
  it('runs pending backtests, then advances listed records, loading each symbol set once a round', { timeout: 240_000 }, async () => {
    const { h, loop } = await setup();
    const a = await listed(h);
    const b = await listed(h);
    const c = await listed(h, undefined, { symbols: ['ETH/USDT:USDT'] });
    const gone = await listed(h);
    const l = loop();
    const first = await l.tick();
    expect(first.backtests).toEqual({ ready: 4, failed: 0, lost: 0 });
    expect(first.forward.advanced).toBe(0);

    h.clock.advance(3 * HOUR);
    await h.stratbox.store.listings.update(gone.sellerId, gone.listing.id, { status: 'unlisted' });
    const second = await l.tick();
    expect(second.forward).toMatchObject({ advanced: 3, delisted: 1, lost: 0, skipped: 0 });
    expect(second.marketLoads).toBe(2);
    for (const { record } of [a, b, c]) expect((await h.stratbox.store.verificationRecords.findById(record.id))!.forward.candles).toBe(2);
    // the delisted listing's record stays, as it was
    const kept = (await h.stratbox.store.verificationRecords.findById(gone.record.id))!;
    expect(kept.status).toBe('ready');
    expect(kept.forward.candles).toBe(0);

    // nothing new: nothing run
    expect((await l.tick()).forward).toMatchObject({ advanced: 0, current: 3, delisted: 1 });
  });

  it('two loops on one store never both advance a record', { timeout: 240_000 }, async () => {
    const { h, loop } = await setup();
    const records = [await listed(h), await listed(h), await listed(h)];
    const one = loop();
    const two = loop();
    await one.tick();
    for (let round = 1; round <= 3; round++) {
      h.clock.advance(2 * HOUR);
      const both: VerificationRound[] = await Promise.all([one.tick(), two.tick()]);
      const advanced = both[0]!.forward.advanced + both[1]!.forward.advanced;
      expect(advanced).toBe(records.length);
      expect(both[0]!.forward.lost + both[1]!.forward.lost + both[0]!.forward.current + both[1]!.forward.current).toBeGreaterThanOrEqual(records.length);
    }
    for (const { record } of records) {
      const stored = (await h.stratbox.store.verificationRecords.findById(record.id))!;
      const { times } = decodePoints(stored.forward.points);
      expect(stored.forward.candles).toBe(times.length);
      for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBe(HOUR);
    }
  });
});

import { describe, expect, it } from 'vitest';
import { createRandom, installDeterminism } from './determinism.js';

/*
 * What makes a run repeatable. The expected numbers come from an independent sfc32 (below, in
 * BigInt arithmetic modulo 2^32, not the int32 tricks of the runtime), seeded as the runtime
 * documents: a = seed, b = 0x9e3779b9, c = 0x243f6a88, counter 1, then 12 draws thrown away.
 */
function referenceSfc32(seed: number): () => number {
  const M = (1n << 32n) - 1n;
  let a = BigInt.asUintN(32, BigInt(seed));
  let b = 0x9e3779b9n;
  let c = 0x243f6a88n;
  let d = 1n;
  const next = () => {
    const t = (a + b + d) & M;
    d = (d + 1n) & M;
    a = b ^ (b >> 9n);
    b = (c + (c << 3n)) & M;
    c = ((c << 21n) | (c >> 11n)) & M;
    c = (c + t) & M;
    return Number(t) / 4294967296;
  };
  for (let k = 0; k < 12; k++) next();
  return next;
}

describe('createRandom', () => {
  it('is sfc32 seeded by the run: the first numbers of seeds 0 and 42', () => {
    const zero = createRandom(0);
    expect([zero(), zero(), zero()]).toEqual([0.9646956792566925, 0.04125421470962465, 0.08847772725857794]);
    const answer = createRandom(42);
    expect([answer(), answer(), answer()]).toEqual([0.6723179400432855, 0.5339017424266785, 0.6324838998261839]);
  });

  it('matches the reference for 10,000 draws of several seeds, always in [0, 1)', () => {
    for (const seed of [1, 7, 123_456_789, 0xffffffff, 2 ** 31]) {
      const random = createRandom(seed);
      const reference = referenceSfc32(seed);
      for (let k = 0; k < 10_000; k++) {
        const x = random();
        const y = reference();
        if (x !== y) expect({ seed, draw: k, x }).toEqual({ seed, draw: k, x: y });
        if (!(x >= 0 && x < 1)) expect({ seed, draw: k, x }).toBe('in [0, 1)');
      }
    }
  });

  it('gives the same numbers for the same seed, others for another; a seed is taken as a 32-bit unsigned integer', () => {
    const draw = (seed: number) => {
      const random = createRandom(seed);
      return Array.from({ length: 5 }, () => random());
    };
    expect(draw(9)).toEqual(draw(9));
    expect(draw(9)).not.toEqual(draw(10));
    expect(draw(-1)).toEqual(draw(0xffffffff));
    expect(draw(2 ** 32 + 5)).toEqual(draw(5));
  });
});

describe('installDeterminism', () => {
  it('makes Math.random the seeded generator and Date the run clock (restored afterwards)', () => {
    const RealDate = Date;
    const realRandom = Math.random;
    const constructorSlot = Object.getOwnPropertyDescriptor(RealDate.prototype, 'constructor')!;
    const random = createRandom(3);
    let t = Date.UTC(2024, 0, 2, 3, 4, 5);
    const seen: Record<string, unknown> = {};
    try {
      installDeterminism(random, () => t);
      seen.random = Math.random === random;
      seen.now = Date.now();
      // biome-ignore lint/complexity/useDateNow: the constructor without arguments is what is checked here
      seen.newDate = new Date().getTime();
      t += 60_000;
      seen.later = Date.now();
      seen.called = Date();
      seen.fromNumber = new Date(5).getTime();
      seen.fromString = new Date('2024-03-01T00:00:00Z').getTime();
      seen.fromParts = new Date(2024, 0).getTime();
      seen.fromAllParts = new Date(2024, 0, 2, 3, 4, 5, 6).getTime();
      seen.instance = new Date() instanceof Date;
      seen.constructorIs = new Date().constructor === Date;
      seen.utc = Date.UTC(2024, 0, 1);
      seen.parse = Date.parse('2024-01-01T00:00:00Z');
    } finally {
      globalThis.Date = RealDate;
      Math.random = realRandom;
      Object.defineProperty(RealDate.prototype, 'constructor', constructorSlot);
    }
    const start = RealDate.UTC(2024, 0, 2, 3, 4, 5);
    expect(seen).toEqual({
      random: true,
      now: start,
      newDate: start,
      later: start + 60_000,
      called: new RealDate(start + 60_000).toString(),
      fromNumber: 5,
      fromString: 1_709_251_200_000,
      // local time, as the built-in Date: the missing day is the 1st, missing hours 0
      fromParts: new RealDate(2024, 0, 1, 0, 0, 0, 0).getTime(),
      fromAllParts: new RealDate(2024, 0, 2, 3, 4, 5, 6).getTime(),
      instance: true,
      constructorIs: true,
      utc: 1_704_067_200_000,
      parse: 1_704_067_200_000,
    });
    expect(new Date().constructor).toBe(RealDate);
  });
});

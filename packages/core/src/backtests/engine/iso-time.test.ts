import { describe, expect, it } from 'vitest';
import { iso } from './iso-time.js';

describe('iso', () => {
  it('writes exactly what toISOString writes', () => {
    const samples = [
      0,
      1,
      999,
      1_000,
      59_999,
      86_399_999,
      86_400_000,
      -1,
      -86_400_001,
      Date.UTC(2024, 1, 29, 23, 59, 59, 999),
      Date.UTC(1969, 11, 31, 12),
      -62_167_219_200_000,
      253_402_300_799_999,
    ];
    let x = 12_345;
    for (let i = 0; i < 20_000; i++) {
      x = (x * 1_103_515_245 + 12_345) % 2_147_483_648;
      samples.push(Math.floor((x / 2_147_483_648 - 0.3) * 4_000_000_000_000), Date.UTC(2023, 0, 1) + i * 60_000 + (x % 1000));
    }
    for (const ms of samples) expect(iso(ms)).toBe(new Date(ms).toISOString());
  });

  it('falls back to toISOString outside four-digit years and for fractions, and throws for invalid times', () => {
    for (const ms of [253_402_300_800_000, -62_167_219_200_001, 8.64e15, 1.5, -0.5]) expect(iso(ms)).toBe(new Date(ms).toISOString());
    expect(() => iso(Number.NaN)).toThrow(RangeError);
    expect(() => iso(Infinity)).toThrow(RangeError);
  });
});

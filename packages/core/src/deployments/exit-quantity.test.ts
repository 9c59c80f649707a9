import { describe, expect, it } from 'vitest';
import { exitQuantity } from './exit-quantity.js';

const market = { amountStep: 0.001, minQuantity: 0.001, minCost: 5 };

describe('exitQuantity', () => {
  it('sells min(position, free) rounded down to the step: a fee taken in the base asset', () => {
    // Bought 0.01 on spot, paid 0.1 % of it in BTC: 0.00999 is what the account holds.
    expect(exitQuantity(0.01, 0.00999, market, 40_000)).toEqual({ quantity: 0.009, dust: 0.001, reason: null });
    expect(exitQuantity(0.01, null, market, 40_000)).toEqual({ quantity: 0.01, dust: 0, reason: null });
    expect(exitQuantity(0.0123, 1, market, 40_000)).toEqual({ quantity: 0.012, dust: 0.0003, reason: null });
  });

  it('sends nothing below the minimum quantity or notional: all of it is dust', () => {
    expect(exitQuantity(0.0004, null, market, 40_000)).toMatchObject({ quantity: 0, dust: 0.0004 });
    const r = exitQuantity(0.002, null, { ...market, minCost: 100 }, 40_000);
    expect(r).toMatchObject({ quantity: 0, dust: 0.002 });
    expect(r.reason).toContain('minimum notional 100');
    expect(exitQuantity(0.002, null, market, 40_000).quantity).toBe(0.002);
  });
});

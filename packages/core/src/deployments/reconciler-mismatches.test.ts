import { describe, expect, it } from 'vitest';
import { MAX_MISMATCHES, mergeMismatches, type ReconciliationMismatch } from './reconciler.js';

const unknown = (at: string, orderId = 'ord_1'): ReconciliationMismatch => ({
  kind: 'unknown_outcome',
  symbol: 'BTC/USDT:USDT',
  orderId,
  message: `order ${orderId} was sent and its outcome is not known yet`,
  at,
});

describe("the reconciliation report's mismatches", () => {
  it('keeps one entry for an order whose outcome stays unknown run after run, at its latest time', () => {
    let list: ReconciliationMismatch[] = [];
    for (let run = 0; run < 50; run++) list = mergeMismatches(list, [unknown(`2026-01-01T00:00:${String(run).padStart(2, '0')}.000Z`)]);
    expect(list).toEqual([unknown('2026-01-01T00:00:49.000Z')]);
  });

  it('keeps distinct mismatches, newest last, at most MAX_MISMATCHES', () => {
    let list: ReconciliationMismatch[] = [];
    for (let i = 0; i < MAX_MISMATCHES + 5; i++) list = mergeMismatches(list, [unknown('2026-01-01T00:00:00.000Z', `ord_${i}`)]);
    expect(list).toHaveLength(MAX_MISMATCHES);
    expect(list[0]!.orderId).toBe('ord_5');
    expect(list.at(-1)!.orderId).toBe(`ord_${MAX_MISMATCHES + 4}`);
  });
});

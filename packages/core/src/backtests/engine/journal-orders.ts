import type { ReplayOrder } from '../../drift/drift-types.js';
import { EXIT_REASONS } from '../../engine/model/codes.js';
import { JOURNAL_FIELDS, JOURNAL_STATUSES } from '../../engine/guest/order-journal.js';
import type { RunOutput } from './run-in-guest.js';

const orNull = (v: number): number | null => (Number.isNaN(v) ? null : v);

/** Turns the guest's order journal (engine/guest/order-journal.ts) into `ReplayOrder`s, in placement order. */
export function journalOrders(journal: NonNullable<RunOutput['journal']>, symbols: readonly string[]): ReplayOrder[] {
  const { entries: J, tags } = journal;
  const count = J.length / JOURNAL_FIELDS;
  const out: ReplayOrder[] = new Array(count);
  for (let k = 0; k < count; k++) {
    const b = k * JOURNAL_FIELDS;
    const n = J[b]!;
    const flags = J[b + 9]!;
    const tag = J[b + 15]!;
    out[k] = {
      id: n > 0 ? `o${n}` : `x${-n}`,
      candleTime: J[b + 1]!,
      source: J[b + 2] === 1 ? 'order' : 'candle',
      symbol: symbols[J[b + 3]!]!,
      side: J[b + 4]! > 0 ? 'buy' : 'sell',
      type: EXIT_REASONS[J[b + 5]!] ?? 'market',
      quantity: orNull(J[b + 6]!),
      size: orNull(J[b + 7]!),
      price: orNull(J[b + 8]!),
      reduceOnly: (flags & 1) !== 0,
      closeAll: (flags & 2) !== 0,
      tag: tag >= 0 ? (tags[tag] ?? null) : null,
      status: JOURNAL_STATUSES[J[b + 10]!] ?? 'open',
      fillTime: orNull(J[b + 11]!),
      fillPrice: orNull(J[b + 12]!),
      fillQuantity: J[b + 13]!,
      fee: J[b + 14]!,
    };
  }
  return out;
}

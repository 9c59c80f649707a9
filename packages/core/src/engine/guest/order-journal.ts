import { F64, jsonStringify, NAN } from './intrinsics.js';

/**
 * Numbers per order in the journal buffer: id (n of `o<n>`, or -n of the engine's `x<n>`),
 * candle time, source (0 onCandle, 1 onOrder or the engine), symbol, side (+1 buy, -1 sell),
 * type (an `EXIT_REASONS` code), quantity, size, price (NaN: none), flags (1 reduceOnly,
 * 2 closeAll), status (`JOURNAL_STATUSES` index), fill time, fill price (NaN: none), fill
 * quantity, fee, tag (index into the tags, -1: none).
 */
export const JOURNAL_FIELDS = 16;

/** Journal statuses, by the code written into an entry. */
export const JOURNAL_STATUSES = ['open', 'filled', 'cancelled', 'rejected'] as const;

/** Orders one run's journal keeps; later orders are left out and the journal is marked truncated. */
export const MAX_JOURNAL_ORDERS = 200_000;

/**
 * The order journal of a backtest (`journal: true`): every order the strategy placed and every
 * close the engine made on its own (stop-loss, take-profit, trailing stop, liquidation, end of
 * run), in placement order, with its outcome. Entries are numbers in one growing buffer (tags
 * apart), read by the host once at the end of the run. Only built when asked for: the orders
 * and the account test one boolean, read once, before calling it.
 */
export function createOrderJournal(maxOrders: number = MAX_JOURNAL_ORDERS) {
  let J = new F64(JOURNAL_FIELDS * 64);
  let count = 0;
  let dropped = 0;
  const tags: string[] = [];
  const tagIndex: Record<string, number> = Object.create(null);
  /** 1 while the loop delivers order events to `onOrder`, else 0 (`onCandle`). */
  let source = 0;

  /** Answers the entry's index, or -1 when the journal is full (the order is left out). */
  function open(
    id: number,
    time: number,
    src: number,
    s: number,
    side: number,
    type: number,
    quantity: number,
    size: number,
    price: number,
    flags: number,
    tag: string | null,
  ): number {
    if (count >= maxOrders) {
      dropped++;
      return -1;
    }
    if ((count + 1) * JOURNAL_FIELDS > J.length) {
      const bigger = new F64(J.length * 2);
      bigger.set(J);
      J = bigger;
    }
    let ti = -1;
    if (tag !== null) {
      const known = tagIndex[tag];
      if (known !== undefined) ti = known;
      else {
        ti = tags.length;
        tags[ti] = tag;
        tagIndex[tag] = ti;
      }
    }
    const b = count * JOURNAL_FIELDS;
    J[b] = id;
    J[b + 1] = time;
    J[b + 2] = src;
    J[b + 3] = s;
    J[b + 4] = side;
    J[b + 5] = type;
    J[b + 6] = quantity;
    J[b + 7] = size;
    J[b + 8] = price;
    J[b + 9] = flags;
    J[b + 10] = 0;
    J[b + 11] = NAN;
    J[b + 12] = NAN;
    J[b + 13] = 0;
    J[b + 14] = 0;
    J[b + 15] = ti;
    return count++;
  }

  function filled(j: number, t: number, px: number, q: number, fee: number): void {
    if (j < 0) return;
    const b = j * JOURNAL_FIELDS;
    J[b + 10] = 1;
    J[b + 11] = t;
    J[b + 12] = px;
    J[b + 13] = q;
    J[b + 14] = fee;
  }

  return {
    /** An order the strategy placed (`o<n>`), as given, still open; answers its entry (-1: left out). */
    placed(
      n: number,
      time: number,
      s: number,
      side: number,
      type: number,
      quantity: number,
      size: number,
      price: number,
      reduceOnly: boolean,
      closeAll: boolean,
      tag: string | null,
    ): number {
      return open(n, time, source, s, side, type, quantity, size, price, (reduceOnly ? 1 : 0) | (closeAll ? 2 : 0), tag);
    },
    filled,
    /** Status 2 (cancelled) or 3 (rejected). */
    ended(j: number, status: number): void {
      if (j >= 0) J[j * JOURNAL_FIELDS + 10] = status;
    },
    /** A close the engine made (`x<n>`): a reduce-only close of quantity q, filled at once. */
    exit(n: number, t: number, s: number, side: number, reason: number, q: number, px: number, fee: number): void {
      filled(open(-n, t, 1, s, side, reason, q, NAN, NAN, 3, null), t, px, q, fee);
    },
    /** Marks what the strategy places next as placed in `onOrder` (1) or `onCandle` (0). */
    setSource(src: number): void {
      source = src;
    },
    /** The entries (`JOURNAL_FIELDS` numbers each). */
    drain(): ArrayBuffer {
      return J.slice(0, count * JOURNAL_FIELDS).buffer;
    },
    /** JSON `{ tags, dropped }`: the tags entries point at, and how many orders were left out. */
    info(): string {
      return jsonStringify({ tags, dropped });
    },
  };
}

export type OrderJournal = ReturnType<typeof createOrderJournal>;

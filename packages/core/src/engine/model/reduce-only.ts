/*
 * Reduce-only orders (docs/strategy-api.md, "Orders"; the paper exchange's orders): a reduce-only
 * order only ever makes the position smaller. At its fill it is cut to the position's size, and
 * cancelled when there is nothing on the other side to reduce.
 */

/** Why a reduce-only order was cancelled at its fill: the position is flat or on the order's side. */
export const NOTHING_TO_REDUCE = 'reduce-only order has no position to reduce';

/**
 * The quantity a reduce-only order of `quantity` on `side` (+1 buy, -1 sell) fills against the
 * signed position `position`: at most the position's size; 0 when it has nothing to reduce.
 */
export function reduceOnlyQuantity(position: number, side: number, quantity: number): number {
  if (position === 0 || position > 0 === side > 0) return 0;
  const size = position < 0 ? -position : position;
  return quantity > size ? size : quantity;
}

import type { LiveFill, ReplayOrder } from './drift-types.js';
import type { IntentMatching } from './intent-matching.js';

/*
 * Pairs live fills with the replay's fills (docs/drift.md, "Trades"). Pure.
 */

/** A replay order that filled. */
export interface ReplayFill {
  order: ReplayOrder;
  time: number;
  price: number;
  quantity: number;
  fee: number;
}

/** A matched pair, a missed replay fill or an extra live fill. */
export type TradePair =
  | { kind: 'matched'; live: LiveFill; replay: ReplayFill }
  | { kind: 'missed'; live: null; replay: ReplayFill }
  | { kind: 'extra'; live: LiveFill; replay: null };

/** +1 for a buy, −1 for a sell: the sign that makes a higher price worse for the account. */
export const sideSign = (side: 'buy' | 'sell'): 1 | -1 => (side === 'buy' ? 1 : -1);

/**
 * The engine's close of open positions at the end of the replay (type `end`): not a trade, an
 * artifact of the backtest ending where the live run keeps its positions (marked at the same
 * close). Its only effect on the replay is its fee.
 */
export const isEndClose = (order: ReplayOrder): boolean => order.type === 'end';

/** The replay orders that filled, as fills (the end-of-run close left out). */
export function replayFills(orders: readonly ReplayOrder[]): ReplayFill[] {
  const out: ReplayFill[] = [];
  for (const order of orders) {
    if (isEndClose(order)) continue;
    if (order.fillTime === null || order.fillPrice === null || !(order.fillQuantity > 0)) continue;
    out.push({ order, time: order.fillTime, price: order.fillPrice, quantity: order.fillQuantity, fee: order.fee });
  }
  return out.sort((a, b) => a.time - b.time);
}

/**
 * 1. Through the decision: a live fill whose `guestId` is a matched live intent's pairs with that
 *    intent's replay order, when it filled.
 * 2. The rest: live and replay fills of the same symbol and side at most `2 × stepMs` apart,
 *    nearest first (a market order fills at the next open in the replay and just after the
 *    close live; a resting order anywhere in the candle).
 * What is left is missed (replay only) or extra (live only). Ordered by time (the replay's for
 * matched and missed pairs), oldest first.
 */
export function matchTrades(fills: readonly LiveFill[], orders: readonly ReplayOrder[], intents: IntentMatching, stepMs: number): TradePair[] {
  const replay = replayFills(orders);
  const replayByOrder = new Map(replay.map((f) => [f.order.id, f]));
  const replayOfGuest = new Map<string, ReplayOrder>();
  for (const intent of intents.liveIntents) {
    const order = intents.replayOf.get(intent.id);
    if (order && !replayOfGuest.has(intent.guestId)) replayOfGuest.set(intent.guestId, order);
  }
  const pairs: TradePair[] = [];
  const usedReplay = new Set<ReplayFill>();
  const restLive: LiveFill[] = [];
  for (const live of fills) {
    const order = live.guestId === null ? undefined : replayOfGuest.get(live.guestId);
    const fill = order ? replayByOrder.get(order.id) : undefined;
    if (fill && !usedReplay.has(fill) && fill.order.symbol === live.symbol && fill.order.side === live.side) {
      usedReplay.add(fill);
      pairs.push({ kind: 'matched', live, replay: fill });
    } else restLive.push(live);
  }
  // Nearest-time pairing of what is left, per symbol and side.
  const tolerance = 2 * stepMs;
  const restReplay = replay.filter((f) => !usedReplay.has(f));
  const candidates: Array<{ live: LiveFill; replay: ReplayFill; distance: number }> = [];
  const groupKey = (symbol: string, side: string) => `${symbol}\u0000${side}`;
  const replayGroups = new Map<string, ReplayFill[]>();
  for (const f of restReplay) {
    const key = groupKey(f.order.symbol, f.order.side);
    const group = replayGroups.get(key);
    if (group) group.push(f);
    else replayGroups.set(key, [f]);
  }
  for (const live of restLive) {
    const group = replayGroups.get(groupKey(live.symbol, live.side)) ?? [];
    let i = lowerBound(group, live.time - tolerance);
    for (; i < group.length && group[i]!.time <= live.time + tolerance; i++) {
      candidates.push({ live, replay: group[i]!, distance: Math.abs(live.time - group[i]!.time) });
    }
  }
  candidates.sort((a, b) => a.distance - b.distance || a.replay.time - b.replay.time);
  const pairedLive = new Set<LiveFill>();
  for (const c of candidates) {
    if (pairedLive.has(c.live) || usedReplay.has(c.replay)) continue;
    pairedLive.add(c.live);
    usedReplay.add(c.replay);
    pairs.push({ kind: 'matched', live: c.live, replay: c.replay });
  }
  for (const f of replay) if (!usedReplay.has(f)) pairs.push({ kind: 'missed', live: null, replay: f });
  for (const live of restLive) if (!pairedLive.has(live)) pairs.push({ kind: 'extra', live, replay: null });
  const timeOf = (p: TradePair) => (p.replay ? p.replay.time : p.live!.time);
  return pairs.sort((a, b) => timeOf(a) - timeOf(b));
}

/** First index of `sorted` (by time) whose time is ≥ `time`. */
function lowerBound(sorted: readonly ReplayFill[], time: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid]!.time < time) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

import type { RecordedIntent, ReplayOrder } from './drift-types.js';
import { relativelyEqual } from './drift-stats.js';

/*
 * Pairs each live `place` intent with the replay order the strategy made for the same decision
 * (docs/drift.md, "Decision parity"). Pure.
 */

/** Order kinds a strategy places itself; the replay's other kinds are the engine's own exits. */
const PLACED_TYPES = new Set(['market', 'limit', 'stop']);

export interface IntentMatching {
  /** Live `place` intents the strategy made (not the runtime's exits), in decision order. */
  liveIntents: RecordedIntent[];
  /** Replay orders the strategy placed (not the engine's exits), in decision order. */
  replayIntents: ReplayOrder[];
  /** Live intent id → the replay order it matched. */
  replayOf: Map<string, ReplayOrder>;
  /** Replay order ids that matched a live intent. */
  matchedReplayIds: Set<string>;
}

/**
 * True when the replay order is the same placement as the live intent, candle time aside. A
 * `ctx.close` (closeAll) is the same decision whatever quantity it comes to: the live runtime
 * names the position's quantity, the backtest closes what is held when it fills.
 */
function samePlacement(intent: RecordedIntent, order: ReplayOrder): boolean {
  const closes = intent.closeAll && order.closeAll;
  return (
    intent.symbol === order.symbol &&
    intent.side === order.side &&
    intent.type === order.type &&
    intent.closeAll === order.closeAll &&
    (closes || relativelyEqual(intent.quantity, order.quantity)) &&
    relativelyEqual(intent.size, order.size) &&
    relativelyEqual(intent.price, order.price)
  );
}

const byDecision = <T extends { candleTime: number }>(a: T, b: T) => a.candleTime - b.candleTime;

/**
 * Greedy, in decision order: each live `place` intent takes the first unmatched replay order of
 * the same symbol, side, type, quantity, size and price (1e-9 relative) at the same candle time.
 * An intent made in `onOrder` may instead take one of the next or the previous candle (`stepMs` away):
 * `onOrder` runs when the fill is known, which a backtest knows while processing the fill's
 * candle and a live run after the previous candle's close.
 */
export function matchIntents(intents: readonly RecordedIntent[], orders: readonly ReplayOrder[], stepMs: number): IntentMatching {
  // The strategy's own placements: the runtime's closes for crossed levels (stop-loss, take-profit, trailing stop) are the model's, on both sides.
  const liveIntents = intents
    .filter((i) => i.kind === 'place' && i.type !== null && PLACED_TYPES.has(i.type))
    .map((intent, index) => ({ intent, index }))
    .sort((a, b) => byDecision(a.intent, b.intent) || a.intent.recordedAt.localeCompare(b.intent.recordedAt) || a.index - b.index)
    .map((e) => e.intent);
  const replayIntents = orders.filter((o) => PLACED_TYPES.has(o.type)).sort(byDecision);
  const replayOf = new Map<string, ReplayOrder>();
  const matchedReplayIds = new Set<string>();
  const atTime = new Map<number, ReplayOrder[]>();
  for (const o of replayIntents) {
    const list = atTime.get(o.candleTime);
    if (list) list.push(o);
    else atTime.set(o.candleTime, [o]);
  }
  const take = (intent: RecordedIntent, time: number) => atTime.get(time)?.find((o) => !matchedReplayIds.has(o.id) && samePlacement(intent, o));
  for (const intent of liveIntents) {
    let found = take(intent, intent.candleTime);
    if (!found && intent.source === 'order') found = take(intent, intent.candleTime + stepMs) ?? take(intent, intent.candleTime - stepMs);
    if (found) {
      replayOf.set(intent.id, found);
      matchedReplayIds.add(found.id);
    }
  }
  return { liveIntents, replayIntents, replayOf, matchedReplayIds };
}

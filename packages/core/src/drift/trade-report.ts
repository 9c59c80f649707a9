import type { DriftReport } from '@stratbox/contract';
import { iso, mean } from './drift-stats.js';
import { slippageBps } from './slippage-stats.js';
import type { TradePair } from './trade-matching.js';

/*
 * The report's `trades` section from the paired fills (docs/drift.md, "Trades"). Pure.
 */

/** Most pairs the report lists (counts cover all of them). */
export const MAX_LISTED_TRADES = 500;

export function tradeReport(pairs: readonly TradePair[]): DriftReport['trades'] {
  let matched = 0;
  let missed = 0;
  let extra = 0;
  const offsets: number[] = [];
  for (const p of pairs) {
    if (p.kind === 'matched') {
      matched++;
      offsets.push(p.live.time - p.replay.time);
    } else if (p.kind === 'missed') missed++;
    else extra++;
  }
  const list = pairs.slice(0, MAX_LISTED_TRADES).map((p) => ({
    kind: p.kind,
    symbol: p.replay ? p.replay.order.symbol : p.live!.symbol,
    side: p.replay ? p.replay.order.side : p.live!.side,
    replay: p.replay ? { time: iso(p.replay.time), price: p.replay.price, quantity: p.replay.quantity, fee: p.replay.fee } : null,
    live: p.live ? { time: iso(p.live.time), price: p.live.price, quantity: p.live.quantity, fee: p.live.fee, orderId: p.live.orderId } : null,
    offsetMs: p.kind === 'matched' ? p.live.time - p.replay.time : null,
    slippageBps: p.kind === 'matched' ? slippageBps(p.replay.order.side, p.live.price, p.replay.price) : null,
  }));
  return { matched, missed, extra, meanOffsetMs: mean(offsets), list };
}

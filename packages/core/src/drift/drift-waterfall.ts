import type { DriftReport } from '@stratbox/contract';
import type { DriftInput } from './drift-types.js';
import { dedupeByTime, liveEquityCurve, liveStartEquity } from './equity-series.js';
import { isEndClose, sideSign, type TradePair } from './trade-matching.js';

/*
 * The P&L waterfall from the replay's P&L to the live P&L (docs/drift.md, "P&L waterfall").
 * Pure. Its parts sum to livePnl − replayPnl exactly: the remainder is defined as what the
 * named parts leave.
 */

/** The close of each symbol's last recorded candle. */
function lastCloses(input: DriftInput): Map<string, number> {
  const last = new Map<string, { time: number; close: number }>();
  for (const c of input.live.candles) {
    const seen = last.get(c.symbol);
    if (!seen || c.time >= seen.time) last.set(c.symbol, { time: c.time, close: c.close });
  }
  return new Map([...last].map(([symbol, v]) => [symbol, v.close]));
}

/**
 * What one fill adds to its account's equity by the end of the window: the position it took
 * marked at the symbol's last recorded close, less its fee. (lastClose − price) × quantity for
 * a buy, the negative for a sell. With no recorded close for the symbol, only the fee.
 */
export function fillValue(side: 'buy' | 'sell', price: number, quantity: number, fee: number, lastClose: number | undefined): number {
  const mark = lastClose === undefined ? price : lastClose;
  return -sideSign(side) * (price - mark) * quantity - fee;
}

/** The replay's equity change over the candles the live run did not process. */
function downtimeChange(input: DriftInput): number {
  const curve = dedupeByTime(input.replay.equityCurve);
  const indexOf = new Map(curve.map((p, i) => [p.time, i]));
  const times = new Set(input.replay.downtimeCandles.map((c) => c.time));
  let change = 0;
  for (const t of times) {
    const i = indexOf.get(t);
    if (i === undefined) continue;
    const before = i > 0 ? curve[i - 1]!.equity : input.replay.initialCapital;
    change += curve[i]!.equity - before;
  }
  return change;
}

export function driftWaterfall(input: DriftInput, pairs: readonly TradePair[]): DriftReport['waterfall'] {
  const replayPnl = input.replay.finalEquity - input.replay.initialCapital;
  const live = liveEquityCurve(input.live.candles);
  const start = liveStartEquity(input.live.runs, live);
  const livePnl = live.length && start !== null ? live[live.length - 1]!.equity - start : 0;

  const closes = lastCloses(input);
  let missedTrades = 0;
  let extraTrades = 0;
  let slippage = 0;
  let fees = 0;
  for (const p of pairs) {
    if (p.kind === 'matched') {
      slippage -= sideSign(p.live.side) * (p.live.price - p.replay.price) * p.live.quantity;
      fees -= p.live.fee - p.replay.fee;
    } else if (p.kind === 'missed') {
      const o = p.replay.order;
      missedTrades -= fillValue(o.side, p.replay.price, p.replay.quantity, p.replay.fee, closes.get(o.symbol));
    } else {
      extraTrades += fillValue(p.live.side, p.live.price, p.live.quantity, p.live.fee, closes.get(p.live.symbol));
    }
  }
  // The replay paid the end-of-run close's fee; the live run, still holding, did not.
  for (const o of input.replay.orders) if (isEndClose(o)) fees += o.fee;
  const funding = input.live.funding === null ? 0 : -(input.live.funding - input.replay.funding);
  const downtime = -downtimeChange(input);
  const named = missedTrades + extraTrades + slippage + fees + funding + downtime;
  const remainder = livePnl - replayPnl - named;
  return { replayPnl, missedTrades, extraTrades, slippage, fees, funding, downtime, remainder, livePnl };
}

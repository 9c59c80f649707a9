import type { DriftReport } from '@stratbox/contract';
import type { DriftInput } from './drift-types.js';
import { iso } from './drift-stats.js';
import type { IntentMatching } from './intent-matching.js';
import type { TradePair } from './trade-matching.js';

/*
 * Decision parity and the first divergence with its likely cause (docs/drift.md, "Decision
 * parity"). Pure.
 */

type Parity = DriftReport['parity'];
type Divergence = NonNullable<Parity['firstDivergence']>;

interface Unmatched {
  time: number;
  symbol: string;
  what: string;
}

const describe = (side: string | null, type: string | null, symbol: string) => `${side ?? '?'} ${type ?? '?'} ${symbol}`;

/** The earliest intent of either side that has no counterpart (the live one first on a tie). */
function firstUnmatched(m: IntentMatching): Unmatched | null {
  const live = m.liveIntents.find((i) => !m.replayOf.has(i.id));
  const replay = m.replayIntents.find((o) => !m.matchedReplayIds.has(o.id));
  const a = live && {
    time: live.candleTime,
    symbol: live.symbol,
    what: `the live run placed ${describe(live.side, live.type, live.symbol)} (${live.guestId}) that the replay did not`,
  };
  const b = replay && {
    time: replay.candleTime,
    symbol: replay.symbol,
    what: `the replay placed ${describe(replay.side, replay.type, replay.symbol)} (${replay.id}) that the live run did not`,
  };
  if (a && b) return b.time < a.time ? b : a;
  return a ?? b ?? null;
}

/** Candle time of the last matched intent before `time` (null with none). */
function lastMatchedBefore(m: IntentMatching, time: number): number | null {
  let last: number | null = null;
  for (const i of m.liveIntents) if (m.replayOf.has(i.id) && i.candleTime < time && (last === null || i.candleTime > last)) last = i.candleTime;
  return last;
}

/**
 * The likely cause of a divergence at candle `time` (decided at that candle's close,
 * `time + stepMs`), checked in this order, within the span since the last matched intent
 * before it (since the window's start with none):
 * - `restart`: a run other than the first (a resume after a restart, or a new start by the
 *   owner) began in the span: the strategy's in-memory state was lost;
 * - `missed_candle`: a candle of the window the live run did not process lies in the span;
 * - `order_outcome`: a fill one side has and the other has not (missed or extra), anywhere
 *   before the decision: the strategy saw different positions;
 * - `unknown` otherwise. (`data` is not detected: the replay runs on the very candles recorded.)
 */
function divergenceCause(input: DriftInput, m: IntentMatching, pairs: readonly TradePair[], u: Unmatched): Divergence {
  const decidedAt = u.time + input.stepMs;
  const since = lastMatchedBefore(m, u.time) ?? input.window.from;
  const runs = [...input.live.runs].sort((a, b) => a.startedAt.localeCompare(b.startedAt));
  const restart = runs.slice(1).find((r) => {
    const t = Date.parse(r.startedAt);
    return t > since && t <= decidedAt;
  });
  const base = { time: iso(u.time), symbol: u.symbol };
  if (restart) {
    return {
      ...base,
      cause: 'restart',
      detail: `${u.what}; the deployment ${restart.resumed ? 'resumed after a restart' : 'was started again'} at ${restart.startedAt}, losing the strategy's state`,
    };
  }
  const missed = input.replay.downtimeCandles.filter((c) => c.time > since && c.time <= u.time).sort((a, b) => a.time - b.time)[0];
  if (missed) {
    return { ...base, cause: 'missed_candle', detail: `${u.what}; the live run did not process the ${missed.symbol} candle of ${iso(missed.time)}` };
  }
  const outcome = pairs.find((p) => p.kind !== 'matched' && (p.replay ? p.replay.time : p.live!.time) < decidedAt);
  if (outcome) {
    const detail =
      outcome.kind === 'missed'
        ? `the replay's ${outcome.replay.order.side} ${outcome.replay.order.symbol} filled at ${iso(outcome.replay.time)}, the live order did not`
        : `a live ${outcome.live!.side} ${outcome.live!.symbol} filled at ${iso(outcome.live!.time)} with no replay counterpart`;
    return { ...base, cause: 'order_outcome', detail: `${u.what}; ${detail}` };
  }
  return { ...base, cause: 'unknown', detail: u.what };
}

export function decisionParity(input: DriftInput, m: IntentMatching, pairs: readonly TradePair[]): Parity {
  const liveIntents = m.liveIntents.length;
  const matched = m.replayOf.size;
  const u = firstUnmatched(m);
  return {
    liveIntents,
    matched,
    share: liveIntents ? matched / liveIntents : null,
    firstDivergence: u ? divergenceCause(input, m, pairs, u) : null,
  };
}

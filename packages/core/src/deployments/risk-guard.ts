import type { HaltReason, RiskLimits } from '@stratbox/contract';
import type { DeploymentRiskState } from '../ports/store.js';

/*
 * A deployment's risk limits, as a pure object the runner asks before and after it acts. It knows
 * nothing of exchanges or stores: the runner gives it the account as it reads it (equity in the
 * settle currency, positions with a price) and the strategy's order intents, and it answers
 * "ok" (null) or a breach with its figures. What it must remember across a restart of the
 * service (the peak equity since the deployment started, and the UTC day's starting equity) is
 * `state()`, which the runner keeps on the deployment's record.
 *
 *   drawdown   = (peak equity - equity) / peak equity          halts at >= maxDrawdown
 *   daily loss = (day's starting equity - equity) / that       halts at >= dailyLossLimit
 *   notional   = |position quantity| x price, per symbol       an entry past it is refused;
 *                                                              a position already past it halts
 *   orders     = the strategy's order intents in the last 60 s halts at > maxOrdersPerMinute
 */

/** What the guard remembers across a restart of the service (kept on the deployment's record as `riskState`). */
export type RiskState = DeploymentRiskState;

/** A breached limit, with the figures (`value` and `limit` in the limit's own unit: a fraction, a notional, a count). */
export interface RiskBreach {
  reason: Exclude<HaltReason, 'positionMismatch'>;
  message: string;
  value: number;
  limit: number;
}

/** One position as the runner sees it; `price` is the latest price it knows (null: unknown, not checked). */
export interface RiskPosition {
  symbol: string;
  side: 'long' | 'short';
  quantity: number;
  price: number | null;
}

/** The account as the runner reads it, in the deployment's settle currency. */
export interface RiskAccount {
  equity: number;
  positions: readonly RiskPosition[];
}

/** An entry the strategy asks for, with what already stands on its symbol. */
export interface RiskEntry {
  symbol: string;
  side: 'buy' | 'sell';
  quantity: number;
  /** The price the entry is expected to fill at (the last close for a market order); null: not checked. */
  price: number | null;
  /** The position now, signed: > 0 long, < 0 short. */
  position: number;
  /** Unfilled quantity of the open entry orders on the symbol, signed like the position (buys > 0). */
  pending: number;
}

export interface RiskGuard {
  readonly limits: RiskLimits;
  /**
   * Takes one reading of the account at `now` (epoch ms): raises the peak, starts a new day's
   * equity at the first reading of a UTC day, then checks the drawdown, the day's loss and the
   * positions' notionals. Returns the first breach, else null.
   */
  observe(account: RiskAccount, now: number): RiskBreach | null;
  /** Counts one order intent of the strategy at `now`; a breach when it is more than `maxOrdersPerMinute` within the last 60 s. */
  countOrder(now: number): RiskBreach | null;
  /** Null when the entry may be placed, else why not (the position would pass `maxPositionNotional`). */
  refuseEntry(entry: RiskEntry): string | null;
  /** What to keep across a restart (null before the first reading). */
  state(): RiskState | null;
  /** Whether `state()` changed since the last call (so the runner writes it only then). */
  takeChanged(): boolean;
}

const MINUTE_MS = 60_000;

const money = (n: number) => n.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
/** A measured fraction as a percentage with one decimal: 0.2134 -> "21.3 %". */
const percent = (fraction: number) => `${(fraction * 100).toFixed(1)} %`;
/** A configured fraction as the user wrote it: 0.2 -> "20 %", 0.025 -> "2.5 %". */
const limitPercent = (fraction: number) => `${Number((fraction * 100).toFixed(6))} %`;
const quantity = (n: number) => String(Number(n.toPrecision(10)));
const utcDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/**
 * Creates the guard of one deployment. `state` is what an earlier run of the same deployment
 * kept (a restart of the service); pass null for a deployment that starts fresh (created or
 * restarted by its owner), whose peak and day start at its first reading. `currency` names the
 * settle currency in messages.
 */
export function createRiskGuard(limits: RiskLimits, state: RiskState | null, currency: string): RiskGuard {
  let current: RiskState | null = state ? { ...state } : null;
  let changed = false;
  /** Times of the strategy's order intents within the last minute, oldest first. */
  const recent: number[] = [];

  function positionBreach(positions: readonly RiskPosition[]): RiskBreach | null {
    const cap = limits.maxPositionNotional;
    if (cap === undefined) return null;
    for (const p of positions) {
      if (p.price === null || !(p.quantity > 0)) continue;
      const notional = p.quantity * p.price;
      if (notional > cap) {
        return {
          reason: 'maxPositionNotional',
          message: `The ${p.symbol} ${p.side} position is ${money(notional)} ${currency} (${quantity(p.quantity)} at ${money(p.price)}); maxPositionNotional is ${money(cap)} ${currency}`,
          value: notional,
          limit: cap,
        };
      }
    }
    return null;
  }

  return {
    limits,

    observe(account, now) {
      const equity = account.equity;
      if (Number.isFinite(equity)) {
        const day = utcDay(now);
        if (!current) {
          current = { peakEquity: equity, peakAt: new Date(now).toISOString(), day, dayStartEquity: equity };
          changed = true;
        } else {
          if (equity > current.peakEquity) {
            current = { ...current, peakEquity: equity, peakAt: new Date(now).toISOString() };
            changed = true;
          }
          if (current.day !== day) {
            current = { ...current, day, dayStartEquity: equity };
            changed = true;
          }
        }
        const { peakEquity, dayStartEquity } = current;
        if (limits.maxDrawdown !== undefined && peakEquity > 0) {
          const drawdown = (peakEquity - equity) / peakEquity;
          if (drawdown >= limits.maxDrawdown) {
            return {
              reason: 'maxDrawdown',
              message: `Equity ${money(equity)} ${currency} is ${percent(drawdown)} below its peak ${money(peakEquity)} ${currency}; maxDrawdown is ${limitPercent(limits.maxDrawdown)}`,
              value: drawdown,
              limit: limits.maxDrawdown,
            };
          }
        }
        if (limits.dailyLossLimit !== undefined && dayStartEquity > 0) {
          const loss = (dayStartEquity - equity) / dayStartEquity;
          if (loss >= limits.dailyLossLimit) {
            return {
              reason: 'dailyLossLimit',
              message: `Equity ${money(equity)} ${currency} is ${percent(loss)} below the day's starting equity ${money(dayStartEquity)} ${currency} (${current.day} UTC); dailyLossLimit is ${limitPercent(limits.dailyLossLimit)}`,
              value: loss,
              limit: limits.dailyLossLimit,
            };
          }
        }
      }
      return positionBreach(account.positions);
    },

    countOrder(now) {
      const max = limits.maxOrdersPerMinute;
      if (max === undefined) return null;
      while (recent.length > 0 && recent[0]! <= now - MINUTE_MS) recent.shift();
      recent.push(now);
      if (recent.length <= max) return null;
      return {
        reason: 'maxOrdersPerMinute',
        message: `The strategy asked for ${recent.length} orders within a minute; maxOrdersPerMinute is ${max}`,
        value: recent.length,
        limit: max,
      };
    },

    refuseEntry(entry) {
      const cap = limits.maxPositionNotional;
      if (cap === undefined || entry.price === null || !(entry.price > 0)) return null;
      const signed = entry.side === 'buy' ? entry.quantity : -entry.quantity;
      // The position once this entry and the open entries on the same side have filled.
      const sameSide = Math.sign(entry.pending) === Math.sign(signed) ? entry.pending : 0;
      const after = entry.position + sameSide + signed;
      const notional = Math.abs(after) * entry.price;
      // An order that leaves the position smaller than it is passes: it only reduces the exposure.
      if (notional <= cap || Math.abs(after) <= Math.abs(entry.position)) return null;
      const side = after > 0 ? 'long' : 'short';
      return `the ${entry.symbol} position would be ${side} ${quantity(Math.abs(after))}, ${money(notional)} ${currency} at ${money(entry.price)}, above maxPositionNotional ${money(cap)} ${currency}`;
    },

    state: () => (current ? { ...current } : null),

    takeChanged() {
      const was = changed;
      changed = false;
      return was;
    },
  };
}

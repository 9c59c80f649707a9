import { EXIT_REASONS, R_END, R_LIQUIDATION, R_STOP_LOSS, R_TAKE_PROFIT, R_TRAILING_STOP, STATE_FIELDS, TRADE_FIELDS } from '../model/codes.js';
import { newExitFill, positionExit } from '../model/exit-decision.js';
import {
  type Account,
  applyFill,
  type ClosedPart,
  liquidate,
  liquidationPrice,
  newClosedPart,
  newPosition,
  type Position,
  payFunding,
} from '../model/position.js';
import { ratchetBest, trailingStopLevel } from '../model/trailing-stop.js';
import { abs, F64, freeze, INF, NAN, NEG_INF } from './intrinsics.js';
import type { TrailSpec } from './order-args.js';
import type { OrderEventQueue } from './order-events.js';
import type { OrderJournal } from './order-journal.js';
import { createSymbolResolver } from './symbols.js';

/** What the account needs to know of the run. */
export interface BacktestAccountConfig {
  symbols: string[];
  initialCapital: number;
  leverage: number;
  slippage: number;
  maker: number;
  taker: number;
  maintenanceMarginRate: number;
  /** False on SPOT: no liquidation. */
  liquidation: boolean;
  /** Per symbol, funding times and rates (ascending), or null: none. */
  funding: Array<{ time: number[]; rate: number[] } | null>;
}

/** What `ctx.position(symbol)` answers. */
export interface PositionView {
  symbol: string;
  side: 'long' | 'short';
  quantity: number;
  entryPrice: number;
  entryTime: number;
  margin: number;
  stopLoss: number | null;
  takeProfit: number | null;
  trailingStop: number | null;
  liquidationPrice: number | null;
  funding: number;
  readonly unrealizedPnl: number;
}

/**
 * The account of one backtest inside the guest: a position per symbol on the shared model
 * (engine/model), the exits attached to each (stop-loss, take-profit, trailing stop,
 * liquidation), funding, and the buffers the host drains: closed trades and account changes.
 * Per-symbol numbers live in typed arrays the candle loop reads directly.
 */
export function createBacktestAccount(cfg: BacktestAccountConfig, events: OrderEventQueue, now: () => number, journal: OrderJournal | null = null) {
  const nSym = cfg.symbols.length;
  const names = cfg.symbols;
  const { slippage: slip, maker, taker, maintenanceMarginRate: mmr } = cfg;
  const useLiq = cfg.liquidation;
  const account: Account = { cash: cfg.initialCapital, marginTotal: 0, leverage: cfg.leverage };
  const lev = cfg.leverage;
  const positions: Position[] = [];
  for (let s = 0; s < nSym; s++) positions.push(newPosition());
  const closed: ClosedPart = newClosedPart();
  /* The models the shared exit decision takes, and where it writes a stop's or take-profit's fill. */
  const fillModel = { slippage: slip };
  const feeModel = { maker, taker };
  const exitFill = newExitFill();

  const sl = new F64(nSym).fill(NAN);
  const tp = new F64(nSym).fill(NAN);
  const slTime = new F64(nSym);
  const tpTime = new F64(nSym);
  const liq = new F64(nSym).fill(NAN);
  const trailDistance = new F64(nSym).fill(NAN);
  const trailFraction = new F64(nSym).fill(NAN);
  const trailBest = new F64(nSym).fill(NAN);
  const trailTime = new F64(nSym);
  /** Last price of each symbol: the last close, or a fill since. */
  const lastPrice = new F64(nSym).fill(NAN);
  /** Prices beyond which an exit may trigger (or a trailing stop move), so the loop skips quiet candles cheaply. */
  const exBelow = new F64(nSym).fill(NEG_INF);
  const exAbove = new F64(nSym).fill(INF);
  /**
   * 1 while symbol s has an open position (mirrors `positions[s].qty !== 0`, kept by
   * updateExitLevels after every change): the candle loop reads it first, because a flat symbol
   * with no orders needs nothing done, and one typed-array read is the cheapest test in QuickJS.
   */
  const open = new Uint8Array(nSym);
  /** Time of each symbol's next funding payment (Infinity: none left). */
  const nextFunding = new F64(nSym).fill(INF);
  const fundingIndex = new Int32Array(nSym);
  for (let s = 0; s < nSym; s++) {
    const f = cfg.funding[s];
    if (f && f.time.length > 0) nextFunding[s] = f.time[0]!;
  }
  /**
   * The time from which the candle loop must look at symbol s whatever the prices: -Infinity
   * while s has pending orders (the orders keep it), else its next funding time. Pending orders
   * and funding due cost the loop one test per candle together, so the quiet candle of an open
   * position costs no funding test of its own.
   */
  const wakeAt = nextFunding.slice();
  const resolve = createSymbolResolver(names, 'run');
  /* The symbol of the last ctx.position call: most calls name the candle's symbol again. */
  let lastName: unknown = null;
  let lastIdx = -1;
  const views: Array<PositionView | null> = [];
  for (let s = 0; s < nSym; s++) views.push(null);

  let TR = new F64(TRADE_FIELDS * 256);
  let trCount = 0;
  let ST = new F64(STATE_FIELDS * 256);
  let stCount = 0;
  /** Whether a fill or a payment changed the account since the last `recordState`. */
  let changed = false;

  function recordTrade(s: number, exitTime: number, exitPrice: number, reason: number): void {
    if ((trCount + 1) * TRADE_FIELDS > TR.length) {
      const bigger = new F64(TR.length * 2);
      bigger.set(TR);
      TR = bigger;
    }
    const b = trCount * TRADE_FIELDS;
    TR[b] = s;
    TR[b + 1] = closed.dir;
    TR[b + 2] = closed.entryTime;
    TR[b + 3] = closed.entryPrice;
    TR[b + 4] = exitTime;
    TR[b + 5] = exitPrice;
    TR[b + 6] = closed.quantity;
    TR[b + 7] = closed.pnl;
    TR[b + 8] = closed.fees;
    TR[b + 9] = reason;
    TR[b + 10] = closed.funding;
    trCount++;
  }

  /** Equity now: cash plus every open position marked at its last price. */
  function equity(): number {
    let e = account.cash;
    for (let k = 0; k < nSym; k++) {
      const p = positions[k]!;
      if (p.qty !== 0) e += p.qty * (lastPrice[k]! - p.entry);
    }
    return e;
  }

  function trailLevel(s: number, dir: number): number {
    return trailingStopLevel(dir, trailBest[s]!, trailDistance[s]!, trailFraction[s]!);
  }

  function updateExitLevels(s: number): void {
    const q = positions[s]!.qty;
    open[s] = q !== 0 ? 1 : 0;
    let a = sl[s]!;
    const b = liq[s]!;
    const t = tp[s]!;
    const trailing = q !== 0 && trailBest[s] === trailBest[s];
    if (trailing) {
      const level = trailLevel(s, q > 0 ? 1 : -1);
      if (a !== a || (q > 0 ? level > a : level < a)) a = level;
    }
    if (q > 0) {
      exBelow[s] = a === a ? (b === b && b > a ? b : a) : b === b ? b : NEG_INF;
      exAbove[s] = t === t ? t : INF;
      if (trailing && trailBest[s]! < exAbove[s]!) exAbove[s] = trailBest[s]!;
    } else if (q < 0) {
      exAbove[s] = a === a ? (b === b && b < a ? b : a) : b === b ? b : INF;
      exBelow[s] = t === t ? t : NEG_INF;
      if (trailing && trailBest[s]! > exBelow[s]!) exBelow[s] = trailBest[s]!;
    } else {
      exBelow[s] = NEG_INF;
      exAbove[s] = INF;
    }
  }

  function updateLiq(s: number): void {
    liq[s] = useLiq ? liquidationPrice(positions[s]!, lev, mmr) : NAN;
    updateExitLevels(s);
  }

  function clearExits(s: number): void {
    sl[s] = NAN;
    tp[s] = NAN;
    trailBest[s] = NAN;
    trailDistance[s] = NAN;
    trailFraction[s] = NAN;
  }

  /** One fill of q units (q > 0) on side +1 (buy) or -1 (sell) at px; records the trade it closes, if any. */
  function fill(s: number, side: number, q: number, px: number, feeRate: number, t: number, reason: number): void {
    const p = positions[s]!;
    const before = p.qty;
    applyFill(account, p, side, q, px, feeRate, t, closed);
    if (closed.quantity > 0) {
      recordTrade(s, t, px, reason);
      if (p.qty === 0 || p.qty > 0 !== before > 0) clearExits(s);
    }
    if (p.qty !== 0) lastPrice[s] = px;
    updateLiq(s);
    views[s] = null;
    changed = true;
  }

  function closeAt(s: number, px: number, feeRate: number, t: number, reason: number): void {
    const q = positions[s]!.qty;
    const a = abs(q);
    const side = q > 0 ? -1 : 1;
    fill(s, side, a, px, feeRate, t, reason);
    if (!emitting && !journaling) return;
    const x = ++exitSeq;
    // Concatenation, not a template: lowered to ES5, a template becomes a call of String.prototype.concat.
    if (emitting) events.emit('x' + x, names[s]!, side, EXIT_REASONS[reason]!, 'filled', a, px, a * px * feeRate, null, null);
    if (journaling) journal!.exit(x, t, s, side, reason, a, px, a * px * feeRate);
  }
  /** The engine's own closes so far: `x<n>` in order events and the journal. */
  let exitSeq = 0;
  /** Read once: without `onOrder`, an exit builds no event. */
  const emitting = events.enabled;
  /** Read once: without a journal, an exit records nothing. */
  const journaling = journal !== null;

  function liquidateAt(s: number, t: number): void {
    const p = positions[s]!;
    const px = liq[s]!;
    const dir = p.qty > 0 ? 1 : -1;
    const penalty = liquidate(account, p, px, closed);
    changed = true;
    recordTrade(s, t, px, R_LIQUIDATION);
    clearExits(s);
    liq[s] = NAN;
    views[s] = null;
    updateExitLevels(s);
    if (!emitting && !journaling) return;
    const x = ++exitSeq;
    if (journaling) journal!.exit(x, t, s, -dir, R_LIQUIDATION, closed.quantity, px, penalty);
    if (!emitting) return;
    events.emit(
      'x' + x,
      names[s]!,
      -dir,
      'liquidation',
      'filled',
      closed.quantity,
      px,
      penalty,
      'loss reached the isolated margin less the maintenance margin',
      null,
    );
  }

  /**
   * Stop-loss (or trailing stop, whichever is nearer the price), liquidation and, when `allowTP`,
   * take-profit of the open position over one candle from `o`. A level set at time T applies to
   * candles after T.
   */
  function checkExits(s: number, t: number, o: number, h: number, l: number, allowTP: boolean): void {
    const q = positions[s]!.qty;
    const dir = q > 0 ? 1 : -1;
    let stopPx = slTime[s]! < t ? sl[s]! : NAN;
    let reason = R_STOP_LOSS;
    if (trailBest[s] === trailBest[s] && trailTime[s]! < t) {
      const level = trailLevel(s, dir);
      if (stopPx !== stopPx || (q > 0 ? level > stopPx : level < stopPx)) {
        stopPx = level;
        reason = R_TRAILING_STOP;
      }
    }
    const tpPx = allowTP && tpTime[s]! < t ? tp[s]! : NAN;
    const exit = positionExit(dir, o, h, l, stopPx, tpPx, liq[s]!, fillModel, feeModel, exitFill);
    if (exit === R_LIQUIDATION) liquidateAt(s, t);
    else if (exit === R_STOP_LOSS) closeAt(s, exitFill.px, exitFill.feeRate, t, reason);
    else if (exit === R_TAKE_PROFIT) closeAt(s, exitFill.px, exitFill.feeRate, t, R_TAKE_PROFIT);
  }

  /** After a candle that did not close the position: its high (long) or low (short) moves a trailing stop for later candles. */
  function ratchet(s: number, t: number, h: number, l: number): void {
    const p = positions[s]!;
    if (p.qty === 0 || trailBest[s] !== trailBest[s] || !(p.entryTime < t)) return;
    const best = ratchetBest(p.qty > 0 ? 1 : -1, trailBest[s]!, h, l);
    if (best !== trailBest[s]) {
      trailBest[s] = best;
      views[s] = null;
      updateExitLevels(s);
    }
  }

  /**
   * Pays every funding event of symbol s due at or before `t` on its open position, at price
   * `px`. The loop calls it only while a position is open (or orders are pending), so events
   * that fell due while flat are passed over here: an event at or before the position's entry
   * is not the position's to pay.
   */
  function fund(s: number, t: number, px: number): void {
    const f = cfg.funding[s]!;
    let k = fundingIndex[s]!;
    const p = positions[s]!;
    while (k < f.time.length && f.time[k]! <= t) {
      if (p.qty !== 0 && f.time[k]! > p.entryTime) {
        payFunding(account, p, px, f.rate[k]!);
        views[s] = null;
        changed = true;
      }
      k++;
    }
    fundingIndex[s] = k;
    nextFunding[s] = k < f.time.length ? f.time[k]! : INF;
    if (wakeAt[s] !== NEG_INF) wakeAt[s] = nextFunding[s]!;
  }

  function setTrailing(s: number, spec: TrailSpec, best: number, time: number): void {
    trailDistance[s] = spec.distance;
    trailFraction[s] = spec.fraction;
    trailBest[s] = best;
    trailTime[s] = time;
    views[s] = null;
    updateExitLevels(s);
  }

  function makeView(s: number): PositionView {
    const p = positions[s]!;
    const q = p.qty;
    const e = p.entry;
    return freeze({
      symbol: names[s]!,
      side: q > 0 ? 'long' : 'short',
      quantity: abs(q),
      entryPrice: e,
      entryTime: p.entryTime,
      margin: p.margin,
      stopLoss: sl[s] === sl[s] ? sl[s]! : null,
      takeProfit: tp[s] === tp[s] ? tp[s]! : null,
      trailingStop: trailBest[s] === trailBest[s] ? trailLevel(s, q > 0 ? 1 : -1) : null,
      liquidationPrice: liq[s] === liq[s] ? liq[s]! : null,
      funding: p.funding,
      get unrealizedPnl() {
        return q * (lastPrice[s]! - e);
      },
    });
  }

  /** `ctx.position(symbol)`: a frozen view, rebuilt only after the position changed; null when flat. */
  function position(symbol: unknown): PositionView | null {
    const s = symbol === lastName ? lastIdx : remember(symbol);
    if (open[s] === 0) return null;
    const v = views[s]!;
    return v !== null ? v : (views[s] = makeView(s));
  }
  function remember(symbol: unknown): number {
    lastIdx = resolve(symbol);
    lastName = symbol;
    return lastIdx;
  }

  return {
    account,
    positions,
    /** Best price since a trailing stop was set, per symbol; NaN: no trailing stop. */
    trailBest,
    open,
    lastPrice,
    exBelow,
    exAbove,
    nextFunding,
    wakeAt,
    equity,
    fill,
    closeAt,
    checkExits,
    ratchet,
    fund,
    position,
    /** Attaches the exits an order carried to the position it opened or enlarged. */
    attachExits(s: number, stopLoss: number, takeProfit: number, trail: TrailSpec | null, time: number, fillPrice: number): void {
      if (stopLoss === stopLoss) {
        sl[s] = stopLoss;
        slTime[s] = time;
      }
      if (takeProfit === takeProfit) {
        tp[s] = takeProfit;
        tpTime[s] = time;
      }
      if (trail !== null) setTrailing(s, trail, fillPrice, time);
      else updateExitLevels(s);
    },
    /** `ctx.setStopLoss` / `ctx.setTakeProfit`: false when flat. */
    setLevel(which: 'sl' | 'tp', s: number, price: number): boolean {
      if (positions[s]!.qty === 0) return false;
      if (which === 'sl') {
        sl[s] = price;
        slTime[s] = now();
      } else {
        tp[s] = price;
        tpTime[s] = now();
      }
      views[s] = null;
      updateExitLevels(s);
      return true;
    },
    /** `ctx.setTrailingStop`: from the last price; null removes it; false when flat. */
    setTrailingStop(s: number, spec: TrailSpec | null): boolean {
      if (positions[s]!.qty === 0) return false;
      if (spec === null) {
        trailBest[s] = NAN;
        views[s] = null;
        updateExitLevels(s);
      } else setTrailing(s, spec, lastPrice[s]!, now());
      return true;
    },
    /** Records symbol s's position and the cash after the fills of batch index i, if anything changed. */
    recordState(i: number, s: number): void {
      if (!changed) return;
      changed = false;
      if ((stCount + 1) * STATE_FIELDS > ST.length) {
        const bigger = new F64(ST.length * 2);
        bigger.set(ST);
        ST = bigger;
      }
      const b = stCount * STATE_FIELDS;
      const p = positions[s]!;
      ST[b] = i;
      ST[b + 1] = s;
      ST[b + 2] = p.qty;
      ST[b + 3] = p.entry;
      ST[b + 4] = account.cash;
      ST[b + 5] = p.realized;
      stCount++;
    },
    get tradeCount() {
      return trCount;
    },
    get stateCount() {
      return stCount;
    },
    drainStates(): ArrayBuffer {
      const out = ST.slice(0, stCount * STATE_FIELDS);
      stCount = 0;
      return out.buffer;
    },
    drainTrades(): ArrayBuffer {
      const out = TR.slice(0, trCount * TRADE_FIELDS);
      trCount = 0;
      return out.buffer;
    },
    /** Closes symbol s's position at `price` (its last close), with the taker fee, at the end of the run. */
    closeAtEnd(s: number, price: number, time: number): void {
      if (positions[s]!.qty === 0) return;
      lastPrice[s] = price;
      closeAt(s, price, taker, time, R_END);
    },
    /** Cash, then each symbol's realized P&L: the final marks. */
    final(): ArrayBuffer {
      const out = new F64(1 + nSym);
      out[0] = account.cash;
      for (let s = 0; s < nSym; s++) out[1 + s] = cfg.initialCapital + positions[s]!.realized;
      return out.buffer;
    },
  };
}

export type BacktestAccount = ReturnType<typeof createBacktestAccount>;

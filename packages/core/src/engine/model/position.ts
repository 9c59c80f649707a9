/*
 * The account model every part of Stratbox shares (docs/backtest-model.md, "Positions, margin
 * and liquidation", "Funding"): one net position per symbol with isolated margin, fees charged
 * at each fill, liquidation at the loss of the margin less the maintenance margin, and funding
 * paid on the position's notional. The backtest runs it inside the sandbox, the paper exchange
 * in the host. Plain functions over plain data; the order of every floating-point operation is
 * part of the contract (backtests are reproduced to the last bit).
 */

/** The money of an account in one currency. */
export interface Account {
  /** Cash: starting capital + realized P&L - fees - funding. */
  cash: number;
  /** Margin locked by every open position. */
  marginTotal: number;
  /** Margin = notional / leverage. */
  leverage: number;
}

/** One symbol's net position. */
export interface Position {
  /** Signed quantity: > 0 long, < 0 short, 0 flat. */
  qty: number;
  /** Average entry price (0 when flat). */
  entry: number;
  /** Time of the fill that opened the position. */
  entryTime: number;
  /** Isolated margin locked by the position. */
  margin: number;
  /** Entry fees not yet charged to a closed trade. */
  openFees: number;
  /** Funding paid (negative: received) since the entry, not yet charged to a closed trade. */
  funding: number;
  /** Realized P&L of this symbol since the start: closed trades, fees and funding. */
  realized: number;
}

/** What a fill or a liquidation closed: a trade, when `quantity` > 0. */
export interface ClosedPart {
  quantity: number;
  /** +1 if the closed part was long, -1 if short. */
  dir: number;
  entryTime: number;
  entryPrice: number;
  /** Net of the part's share of entry fees, its exit fee (or liquidation fee) and its share of funding. */
  pnl: number;
  fees: number;
  funding: number;
}

/* Read once: in the sandbox (QuickJS, no inline caches) `Math.abs` costs two lookups per use. */
const abs = Math.abs;
const NAN = Number.NaN;

/** Quantities below this share of a fill are float dust, not a position. */
const DUST = 1e-12;

export function newPosition(): Position {
  return { qty: 0, entry: 0, entryTime: 0, margin: 0, openFees: 0, funding: 0, realized: 0 };
}

export function newClosedPart(): ClosedPart {
  return { quantity: 0, dir: 0, entryTime: 0, entryPrice: 0, pnl: 0, fees: 0, funding: 0 };
}

/** Closes the position at no price: frees its margin and zeroes it. */
function flatten(a: Account, p: Position): void {
  a.marginTotal -= p.margin;
  p.qty = 0;
  p.entry = 0;
  p.margin = 0;
  p.openFees = 0;
  p.funding = 0;
}

/**
 * Applies one fill of `q` units (q > 0) on `side` (+1 buy, -1 sell) at `px`, paying `q x px x
 * feeRate`. With the position (or from flat) it adds at the weighted average entry and locks
 * `q x px / leverage`; against it, it realizes the closed part into cash, frees its share of the
 * margin, and opens the rest (if any) the other way at `px`. Writes the closed part, if any, to
 * `closed` (its `quantity` is 0 otherwise) and returns the fee.
 */
export function applyFill(a: Account, p: Position, side: number, q: number, px: number, feeRate: number, t: number, closed: ClosedPart): number {
  const fee = q * px * feeRate;
  const cur = p.qty;
  const lev = a.leverage;
  a.cash -= fee;
  p.realized -= fee;
  closed.quantity = 0;
  if (cur === 0 || cur > 0 === side > 0) {
    const a0 = abs(cur);
    const a1 = a0 + q;
    p.entry = (a0 * p.entry + q * px) / a1;
    if (cur === 0) p.entryTime = t;
    p.margin += (q * px) / lev;
    a.marginTotal += (q * px) / lev;
    p.openFees += fee;
    p.qty = cur + side * q;
    return fee;
  }
  const size = abs(cur);
  const dir = cur > 0 ? 1 : -1;
  const closeQ = q < size ? q : size;
  const gross = closeQ * (px - p.entry) * dir;
  const entryFee = (p.openFees * closeQ) / size;
  const exitFee = (fee * closeQ) / q;
  const funding = p.funding === 0 ? 0 : (p.funding * closeQ) / size;
  a.cash += gross;
  p.realized += gross;
  closed.quantity = closeQ;
  closed.dir = dir;
  closed.entryTime = p.entryTime;
  closed.entryPrice = p.entry;
  closed.pnl = gross - entryFee - exitFee - funding;
  closed.fees = entryFee + exitFee;
  closed.funding = funding;
  const openQ = q - closeQ;
  if (closeQ >= size * (1 - DUST)) {
    flatten(a, p);
  } else {
    p.openFees -= entryFee;
    p.funding -= funding;
    const freed = (p.margin * closeQ) / size;
    p.margin -= freed;
    a.marginTotal -= freed;
    p.qty = dir * (size - closeQ);
  }
  if (openQ > q * DUST) {
    p.qty = side * openQ;
    p.entry = px;
    p.entryTime = t;
    p.margin = (openQ * px) / lev;
    a.marginTotal += p.margin;
    p.openFees = (fee * openQ) / q;
  }
  return fee;
}

/** The price at which the position's loss reaches its margin less the maintenance margin; NaN when flat. */
export function liquidationPrice(p: Position, leverage: number, maintenanceMarginRate: number): number {
  if (p.qty === 0) return NAN;
  return p.qty > 0 ? p.entry * (1 - 1 / leverage + maintenanceMarginRate) : p.entry * (1 + 1 / leverage - maintenanceMarginRate);
}

/**
 * Liquidates the whole position at `px` (its liquidation price): realizes the loss and charges
 * what is left of the margin as the liquidation fee, so the trader loses the whole margin.
 * Writes the trade to `closed`; returns the liquidation fee.
 */
export function liquidate(a: Account, p: Position, px: number, closed: ClosedPart): number {
  const size = abs(p.qty);
  const dir = p.qty > 0 ? 1 : -1;
  const gross = size * (px - p.entry) * dir;
  let penalty = p.margin + gross;
  if (penalty < 0) penalty = 0;
  a.cash += gross - penalty;
  p.realized += gross - penalty;
  closed.quantity = size;
  closed.dir = dir;
  closed.entryTime = p.entryTime;
  closed.entryPrice = p.entry;
  closed.pnl = p.funding === 0 ? gross - p.openFees - penalty : gross - p.openFees - penalty - p.funding;
  closed.fees = p.openFees + penalty;
  closed.funding = p.funding;
  flatten(a, p);
  return penalty;
}

/**
 * Why a fill of `q` on `side` at `px` cannot be made, or null if it can: the part that opens or
 * enlarges a position needs `opening x px / leverage` of free margin (equity less the margin of
 * the other open positions). `equity` may be given as a function, called only when the fill
 * opens something (a close never needs it).
 */
export function marginRefusal(a: Account, p: Position, side: number, q: number, px: number, equity: number | (() => number)): string | null {
  const cur = p.qty;
  const same = cur === 0 || cur > 0 === side > 0;
  const opening = same ? q : q - abs(cur);
  if (!(opening > q * DUST)) return null;
  const freed = same ? 0 : p.margin;
  const avail = (typeof equity === 'number' ? equity : equity()) - (a.marginTotal - freed);
  const need = (opening * px) / a.leverage;
  return need > avail * (1 + 1e-9) ? `insufficient margin: needs ${need}, available ${avail}` : null;
}

/**
 * Pays funding on the open position at `price`: `qty x price x rate` (a long pays a positive
 * rate, a short receives it). Returns the amount paid (negative: received).
 */
export function payFunding(a: Account, p: Position, price: number, rate: number): number {
  const paid = p.qty * price * rate;
  a.cash -= paid;
  p.realized -= paid;
  p.funding += paid;
  return paid;
}

/** Unrealized P&L of the position at `mark`. */
export function unrealizedPnl(p: Position, mark: number): number {
  return p.qty * (mark - p.entry);
}

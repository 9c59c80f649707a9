import type { ExchangeBalance, ExchangePosition } from '../ports/exchange-gateway.js';

/*
 * The money of a paper account: balances, and for LINEAR markets net positions with isolated
 * margin per symbol, as in the backtest engine (sandbox/guest-runtime.ts, "applyFill"):
 * - a fill pays `quantity x price x fee rate` from the wallet;
 * - a fill on the side of the position (or from flat) adds to it at the weighted average entry
 *   and locks `notional / leverage` as margin;
 * - a fill against it realizes `closed x (price - entry) x direction` into the wallet, frees
 *   the closed share of the margin, and opens the rest (if any) the other way at the fill price;
 * - opening needs `opening notional / leverage` of free equity (wallet + unrealized - margin
 *   still locked), else the fill is refused as insufficient funds.
 * SPOT markets move base and quote balances: a buy needs quote for cost and fee, a sell needs
 * the base it sells. There is no liquidation and no funding.
 */

export interface PaperSymbol {
  symbol: string;
  base: string;
  quote: string;
  /** The margin currency of a LINEAR market; null for SPOT. */
  settle: string | null;
}

export interface PaperPosition {
  /** Signed: > 0 long, < 0 short. */
  qty: number;
  entry: number;
  margin: number;
}

export interface PaperAccount {
  /** Why a fill of `quantity` (> 0) on `side` at `price` cannot be made now, or null if it can. */
  refusal(market: PaperSymbol, side: 1 | -1, quantity: number, price: number, feeRate: number): string | null;
  /** Applies a fill (checked with `refusal` first) and returns the fee paid. */
  fill(market: PaperSymbol, side: 1 | -1, quantity: number, price: number, feeRate: number): number;
  /** Signed position quantity of a LINEAR symbol (0 if flat or SPOT). */
  positionOf(symbol: string): number;
  /** Symbols with an open position. */
  openSymbols(): string[];
  balance(marks: ReadonlyMap<string, number>): ExchangeBalance;
  positions(symbols: readonly string[], marks: ReadonlyMap<string, number>): ExchangePosition[];
  /** The account as plain data: `createPaperAccount({ ..., state })` continues from it. */
  state(): PaperAccountState;
}

/** A paper account's balances, positions and last marks, as plain (JSON-safe) data. */
export interface PaperAccountState {
  wallet: Array<[currency: string, amount: number]>;
  positions: Array<[symbol: string, position: PaperPosition]>;
  settleOf: Array<[symbol: string, currency: string]>;
  lastMarks: Array<[symbol: string, price: number]>;
}

/** A tiny tolerance for float dust when a position is closed in full. */
const DUST = 1e-12;

export function createPaperAccount(config: {
  initialBalance: Record<string, number>;
  leverage: number;
  linear: boolean;
  settle: string;
  /** A saved state to continue from (then `initialBalance` is not used). */
  state?: PaperAccountState;
}): PaperAccount {
  const saved = config.state;
  const wallet = new Map<string, number>(saved ? saved.wallet : Object.entries(config.initialBalance));
  const positions = new Map<string, PaperPosition>(saved?.positions.map(([s, p]) => [s, { ...p }]));
  /** Settle currency of each symbol with a position (LINEAR). */
  const settleOf = new Map<string, string>(saved?.settleOf);
  const lev = config.leverage;
  const get = (currency: string) => wallet.get(currency) ?? 0;
  const add = (currency: string, amount: number) => wallet.set(currency, get(currency) + amount);

  /** Unrealized PnL and locked margin of the positions settled in `currency`. */
  function exposure(currency: string, marks: ReadonlyMap<string, number>) {
    let unrealized = 0;
    let margin = 0;
    for (const [symbol, p] of positions) {
      if (settleOf.get(symbol) !== currency) continue;
      const mark = marks.get(symbol) ?? p.entry;
      unrealized += p.qty * (mark - p.entry);
      margin += p.margin;
    }
    return { unrealized, margin };
  }

  /** The marks the account last saw, kept so that `refusal` values other positions fairly. */
  const lastMarks = new Map<string, number>(saved?.lastMarks);

  return {
    refusal(market, side, quantity, price, feeRate) {
      lastMarks.set(market.symbol, price);
      if (!config.linear) {
        if (side > 0) {
          const need = quantity * price * (1 + feeRate);
          return get(market.quote) + DUST < need ? `insufficient ${market.quote}: needs ${need}, has ${get(market.quote)}` : null;
        }
        return get(market.base) + DUST < quantity ? `insufficient ${market.base}: needs ${quantity}, has ${get(market.base)}` : null;
      }
      const settle = market.settle ?? config.settle;
      const current = positions.get(market.symbol);
      const cur = current?.qty ?? 0;
      const same = cur === 0 || cur > 0 === side > 0;
      const opening = same ? quantity : quantity - Math.abs(cur);
      if (opening <= quantity * DUST) return null;
      const freed = same ? 0 : (current?.margin ?? 0);
      const { unrealized, margin } = exposure(settle, lastMarks);
      const available = get(settle) + unrealized - (margin - freed);
      const need = (opening * price) / lev;
      return need > available * (1 + 1e-9) ? `insufficient margin: needs ${need} ${settle}, available ${available}` : null;
    },

    fill(market, side, quantity, price, feeRate) {
      const fee = quantity * price * feeRate;
      if (!config.linear) {
        if (side > 0) {
          add(market.quote, -(quantity * price) - fee);
          add(market.base, quantity);
        } else {
          add(market.base, -quantity);
          add(market.quote, quantity * price - fee);
        }
        return fee;
      }
      const settle = market.settle ?? config.settle;
      settleOf.set(market.symbol, settle);
      add(settle, -fee);
      const p: PaperPosition = positions.get(market.symbol) ?? { qty: 0, entry: 0, margin: 0 };
      if (p.qty === 0 || p.qty > 0 === side > 0) {
        const size = Math.abs(p.qty) + quantity;
        positions.set(market.symbol, {
          qty: p.qty + side * quantity,
          entry: (Math.abs(p.qty) * p.entry + quantity * price) / size,
          margin: p.margin + (quantity * price) / lev,
        });
        return fee;
      }
      const size = Math.abs(p.qty);
      const dir = p.qty > 0 ? 1 : -1;
      const closed = Math.min(quantity, size);
      add(settle, closed * (price - p.entry) * dir);
      const rest = quantity - closed;
      if (closed >= size * (1 - DUST)) {
        positions.delete(market.symbol);
        if (rest > quantity * DUST) positions.set(market.symbol, { qty: side * rest, entry: price, margin: (rest * price) / lev });
      } else {
        positions.set(market.symbol, { qty: dir * (size - closed), entry: p.entry, margin: p.margin * (1 - closed / size) });
      }
      return fee;
    },

    positionOf(symbol) {
      return positions.get(symbol)?.qty ?? 0;
    },

    openSymbols() {
      return [...positions.keys()];
    },

    balance(marks) {
      for (const [symbol, mark] of marks) lastMarks.set(symbol, mark);
      const result: ExchangeBalance = {};
      for (const [currency, amount] of wallet) {
        if (!config.linear) {
          result[currency] = { free: amount, used: 0, total: amount };
          continue;
        }
        const { unrealized, margin } = exposure(currency, lastMarks);
        const total = amount + unrealized;
        result[currency] = { free: Math.max(0, total - margin), used: margin, total };
      }
      return result;
    },

    positions(symbols, marks) {
      for (const [symbol, mark] of marks) lastMarks.set(symbol, mark);
      const result: ExchangePosition[] = [];
      for (const symbol of symbols) {
        const p = positions.get(symbol);
        if (!p) continue;
        const mark = lastMarks.get(symbol) ?? null;
        result.push({
          symbol,
          side: p.qty > 0 ? 'long' : 'short',
          quantity: Math.abs(p.qty),
          entryPrice: p.entry,
          markPrice: mark,
          // `+ 0` turns -0 (a short at its entry price) into 0.
          unrealizedPnl: mark === null ? null : p.qty * (mark - p.entry) + 0,
          leverage: lev,
          liquidationPrice: null,
        });
      }
      return result;
    },

    state() {
      return {
        wallet: [...wallet],
        positions: [...positions].map(([s, p]) => [s, { ...p }]),
        settleOf: [...settleOf],
        lastMarks: [...lastMarks],
      };
    },
  };
}

import {
  type Account,
  applyFill,
  type ClosedPart,
  liquidate,
  liquidationPrice,
  marginRefusal,
  newClosedPart,
  newPosition,
  payFunding,
  type Position,
  unrealizedPnl,
} from '../engine/model/position.js';
import type { ExchangeBalance, ExchangePosition } from '../ports/exchange-gateway.js';

/*
 * The money of a paper account.
 *
 * LINEAR markets run on the engine's account model (engine/model/position.ts), the very code the
 * backtest runs: one `Account` per settle currency (its `cash` is the wallet amount of that
 * currency) and one `Position` per symbol, with isolated margin. Fills go through `applyFill`,
 * the margin check through `marginRefusal` (equity = wallet + unrealized P&L of the positions in
 * that currency at their last marks), liquidation through `liquidationPrice` and `liquidate`,
 * funding through `payFunding`. Nothing here does position arithmetic of its own.
 *
 * SPOT markets move base and quote balances: a buy needs quote for cost and fee, a sell needs
 * the base it sells. This is where paper differs from the backtest's SPOT model, a leverage-1
 * long-only account in the quote currency (docs/backtest-model.md, "Paper and live trading"):
 * the same fills give the same equity (quote plus base at the price), but paper also holds base
 * balances (which a credential may start with), and a sell beyond what is held is refused as
 * insufficient funds where the backtest cuts it to the position.
 */

export interface PaperSymbol {
  symbol: string;
  base: string;
  quote: string;
  /** The margin currency of a LINEAR market; null for SPOT. */
  settle: string | null;
}

/** A LINEAR position as saved. States saved before the shared model have only `qty`, `entry` and `margin`. */
export type PaperPosition = Pick<Position, 'qty' | 'entry' | 'margin'> & Partial<Omit<Position, 'qty' | 'entry' | 'margin'>>;

/** What a liquidation did: the whole position closed at its liquidation price, its margin lost. */
export interface PaperLiquidation {
  /** The closing side: `-1` (sell) for a long, `+1` (buy) for a short. */
  side: 1 | -1;
  quantity: number;
  price: number;
  /** What was left of the margin, charged as the liquidation fee. */
  fee: number;
}

export interface PaperAccount {
  /**
   * Why a fill of `quantity` (> 0) on `side` at `price` cannot be made now, or null if it can.
   * `marks` values the open LINEAR positions (a position without a mark is valued at its entry).
   */
  refusal(market: PaperSymbol, side: 1 | -1, quantity: number, price: number, feeRate: number, marks: ReadonlyMap<string, number>): string | null;
  /** Applies a fill (checked with `refusal` first) at time `time` (epoch ms) and returns the fee paid. */
  fill(market: PaperSymbol, side: 1 | -1, quantity: number, price: number, feeRate: number, time: number): number;
  /** Signed position quantity of a LINEAR symbol (0 if flat or SPOT). */
  positionOf(symbol: string): number;
  /** Symbols with an open position. */
  openSymbols(): string[];
  /** The price at which the open LINEAR position of `symbol` is liquidated; null when flat. */
  liquidationPriceOf(symbol: string): number | null;
  /** Liquidates the open position of `symbol` at its liquidation price if `price` reached it; null if it did not (or flat). */
  liquidateAt(symbol: string, price: number): PaperLiquidation | null;
  /** Pays funding on the open position of `symbol` at `price` and `rate`; returns the amount paid (negative: received), 0 when flat. */
  payFunding(symbol: string, price: number, rate: number): number;
  balance(marks: ReadonlyMap<string, number>): ExchangeBalance;
  positions(symbols: readonly string[], marks: ReadonlyMap<string, number>): ExchangePosition[];
  /** The account as plain data: `createPaperAccount({ ..., state })` continues from it. */
  state(): PaperAccountState;
}

/**
 * A paper account as plain (JSON-safe) data. `wallet` is the cash of each currency's account
 * (LINEAR) or each balance (SPOT). States saved by earlier versions (positions with only `qty`,
 * `entry` and `margin`, no `marginTotal`, and `lastMarks`) still load: the missing position
 * fields start at 0 and `marginTotal` is the sum of the margins.
 */
export interface PaperAccountState {
  wallet: Array<[currency: string, amount: number]>;
  positions: Array<[symbol: string, position: PaperPosition]>;
  settleOf: Array<[symbol: string, currency: string]>;
  /** Margin locked in each currency's account (the model's `Account.marginTotal`). */
  marginTotal?: Array<[currency: string, amount: number]>;
  /** Written by earlier versions; not read. */
  lastMarks?: Array<[symbol: string, price: number]>;
}

/** A tiny tolerance for float dust in SPOT balance checks. */
const DUST = 1e-12;

function loadPosition(saved: PaperPosition): Position {
  return { ...newPosition(), ...saved };
}

export function createPaperAccount(config: {
  initialBalance: Record<string, number>;
  leverage: number;
  linear: boolean;
  settle: string;
  /** Maintenance margin as a fraction of entry notional, as the backtest's `maintenanceMarginRate`. */
  maintenanceMarginRate: number;
  /** A saved state to continue from (then `initialBalance` is not used). */
  state?: PaperAccountState;
}): PaperAccount {
  const saved = config.state;
  const lev = config.leverage;
  const mmr = config.maintenanceMarginRate;
  const initial: Array<[string, number]> = saved ? saved.wallet : Object.entries(config.initialBalance);
  /** SPOT balances by currency. */
  const wallet = new Map<string, number>(config.linear ? [] : initial);
  /** LINEAR: one model account per settle currency; its cash is the wallet amount. */
  const accounts = new Map<string, Account>(config.linear ? initial.map(([currency, cash]) => [currency, { cash, marginTotal: 0, leverage: lev }]) : []);
  const positions = new Map<string, Position>(saved?.positions.map(([s, p]) => [s, loadPosition(p)]));
  /** Settle currency of each symbol with a position (LINEAR). */
  const settleOf = new Map<string, string>(saved?.settleOf);
  const closed: ClosedPart = newClosedPart();

  const accountOf = (currency: string): Account => {
    let a = accounts.get(currency);
    if (!a) {
      a = { cash: 0, marginTotal: 0, leverage: lev };
      accounts.set(currency, a);
    }
    return a;
  };
  if (config.linear) {
    const totals = new Map(saved?.marginTotal);
    if (saved?.marginTotal) for (const [currency, margin] of totals) accountOf(currency).marginTotal = margin;
    else for (const [symbol, p] of positions) accountOf(settleOf.get(symbol) ?? config.settle).marginTotal += p.margin;
  }

  const get = (currency: string) => wallet.get(currency) ?? 0;
  const add = (currency: string, amount: number) => wallet.set(currency, get(currency) + amount);
  const settleCurrency = (market: PaperSymbol) => market.settle ?? config.settle;

  /** Unrealized P&L of the positions settled in `currency` at `marks` (a position without a mark: at its entry, so 0). */
  function unrealized(currency: string, marks: ReadonlyMap<string, number>): number {
    let sum = 0;
    for (const [symbol, p] of positions) {
      if ((settleOf.get(symbol) ?? config.settle) !== currency) continue;
      const mark = marks.get(symbol);
      if (mark !== undefined) sum += unrealizedPnl(p, mark);
    }
    return sum;
  }

  const dropIfFlat = (symbol: string) => {
    if (positions.get(symbol)?.qty === 0) positions.delete(symbol);
  };

  return {
    refusal(market, side, quantity, price, feeRate, marks) {
      if (!config.linear) {
        if (side > 0) {
          const need = quantity * price * (1 + feeRate);
          return get(market.quote) + DUST < need ? `insufficient ${market.quote}: needs ${need}, has ${get(market.quote)}` : null;
        }
        return get(market.base) + DUST < quantity ? `insufficient ${market.base}: needs ${quantity}, has ${get(market.base)}` : null;
      }
      const settle = settleCurrency(market);
      const account = accountOf(settle);
      const equity = account.cash + unrealized(settle, marks);
      const refusal = marginRefusal(account, positions.get(market.symbol) ?? newPosition(), side, quantity, price, equity);
      return refusal === null ? null : `${refusal} (${settle})`;
    },

    fill(market, side, quantity, price, feeRate, time) {
      if (!config.linear) {
        const fee = quantity * price * feeRate;
        if (side > 0) {
          add(market.quote, -(quantity * price) - fee);
          add(market.base, quantity);
        } else {
          add(market.base, -quantity);
          add(market.quote, quantity * price - fee);
        }
        return fee;
      }
      const settle = settleCurrency(market);
      settleOf.set(market.symbol, settle);
      let p = positions.get(market.symbol);
      if (!p) {
        p = newPosition();
        positions.set(market.symbol, p);
      }
      const fee = applyFill(accountOf(settle), p, side, quantity, price, feeRate, time, closed);
      dropIfFlat(market.symbol);
      return fee;
    },

    positionOf(symbol) {
      return positions.get(symbol)?.qty ?? 0;
    },

    openSymbols() {
      return [...positions.keys()];
    },

    liquidationPriceOf(symbol) {
      const p = positions.get(symbol);
      const at = p && config.linear ? liquidationPrice(p, lev, mmr) : Number.NaN;
      return Number.isNaN(at) ? null : at;
    },

    liquidateAt(symbol, price) {
      const p = positions.get(symbol);
      if (!p || !config.linear || p.qty === 0) return null;
      const at = liquidationPrice(p, lev, mmr);
      if (p.qty > 0 ? !(price <= at) : !(price >= at)) return null;
      const side = p.qty > 0 ? -1 : 1;
      const fee = liquidate(accountOf(settleOf.get(symbol) ?? config.settle), p, at, closed);
      dropIfFlat(symbol);
      return { side, quantity: closed.quantity, price: at, fee };
    },

    payFunding(symbol, price, rate) {
      const p = positions.get(symbol);
      if (!p || !config.linear || p.qty === 0) return 0;
      return payFunding(accountOf(settleOf.get(symbol) ?? config.settle), p, price, rate);
    },

    balance(marks) {
      const result: ExchangeBalance = {};
      if (!config.linear) {
        for (const [currency, amount] of wallet) result[currency] = { free: amount, used: 0, total: amount };
        return result;
      }
      for (const [currency, account] of accounts) {
        const total = account.cash + unrealized(currency, marks);
        result[currency] = { free: Math.max(0, total - account.marginTotal), used: account.marginTotal, total };
      }
      return result;
    },

    positions(symbols, marks) {
      const result: ExchangePosition[] = [];
      for (const symbol of symbols) {
        const p = positions.get(symbol);
        if (!p || p.qty === 0) continue;
        const mark = marks.get(symbol) ?? null;
        result.push({
          symbol,
          side: p.qty > 0 ? 'long' : 'short',
          quantity: Math.abs(p.qty),
          entryPrice: p.entry,
          markPrice: mark,
          // `+ 0` turns -0 (a short at its entry price) into 0.
          unrealizedPnl: mark === null ? null : unrealizedPnl(p, mark) + 0,
          leverage: lev,
          liquidationPrice: liquidationPrice(p, lev, mmr),
        });
      }
      return result;
    },

    state() {
      if (!config.linear) return { wallet: [...wallet], positions: [], settleOf: [], lastMarks: [] };
      return {
        wallet: [...accounts].map(([currency, a]) => [currency, a.cash]),
        positions: [...positions].map(([s, p]) => [s, { ...p }]),
        settleOf: [...settleOf],
        marginTotal: [...accounts].map(([currency, a]) => [currency, a.marginTotal]),
        lastMarks: [],
      };
    },
  };
}

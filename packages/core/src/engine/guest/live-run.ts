/*
 * The trusted runtime of a live deployment, evaluated inside its QuickJS context before the
 * strategy (bundled at build time: engine/guest-script.ts). It builds the SAME `ctx` as a
 * backtest (docs/strategy-api.md), but nothing is simulated here:
 * - `ctx.buy/sell/close/cancel/cancelAll` check their arguments exactly as in a backtest
 *   (order-args.ts) and record *intents*, which the host turns into exchange orders after the
 *   call returns;
 * - `ctx.position/orders/equity/cash` read the account state the host passes in with each call
 *   (what the exchange and the Store say), plus the intents of the current call;
 * - `onOrder` receives the fills, cancellations and rejections the host feeds in;
 * - stop-loss, take-profit and trailing-stop levels are kept here per symbol and checked on each
 *   closed candle by the shared model's rules: a crossed level becomes a reduce-only market
 *   close intent whose fill `onOrder` sees as `stopLoss`, `takeProfit` or `trailingStop`.
 * Indicators are computed by the host (trusted code in the child process) through `hostInd`;
 * `ctx.history` is kept here (candle-history.ts), seeded by the host through `hostHistory`.
 * Data crosses as JSON.
 */
import { type StrategyCandle, type StrategyModule, strategyHandlers } from './strategy-module.js';
import { type LiveExitKind, MAX_OPEN_ORDERS } from '../model/codes.js';
import { INDICATOR_DEFS, INDICATOR_KINDS } from '../../indicators/indicator-kinds.js';
import type { LiveAccountState, LiveOrderState, LivePositionState } from './live-state.js';
import { ratchetBest, trailingStopLevel } from '../model/trailing-stop.js';
import { deepFreeze } from './errors.js';
import { freeze, jsonParse, jsonStringify } from './intrinsics.js';
import type { LogBuffer } from './log-buffer.js';
import { createSymbolResolver } from './symbols.js';
import { createCandleHistory, type HostHistory } from './candle-history.js';
import { createIndicatorApi } from './indicator-api.js';
import { ORDER_TYPE_NAMES, optionalPrice, optionalTrail, parseOrderArgs, type TrailSpec } from './order-args.js';

type ExitKind = LiveExitKind;

/** An open order in this call: the host's, or one the strategy placed now (then its type is any the order arguments allow). */
type LiveOrder = Omit<LiveOrderState, 'type'> & { type: string; exit?: ExitKind | null };

interface LiveState extends Omit<LiveAccountState, 'orders'> {
  orders: LiveOrder[];
}

interface Trail extends TrailSpec {
  best: number;
}

/** Answers output `output` of an indicator series (registering it on first use); arguments past the kind's count are NaN. */
export type HostInd = (kind: number, symbol: number, timeframe: number, a0: number, a1: number, a2: number, output: number) => number;
export type { StrategyModule } from './strategy-module.js';

const nullable = (v: number) => (v === v ? v : null);

/** What the host sends with `start`. */
export interface LiveRunConfig {
  symbols: string[];
  /** The deployment's timeframe, then `meta.timeframes`. */
  timeframes: Array<{ name: string; ms: number }>;
  params: unknown;
  /** The last order id number the deployment used, so ids stay unique across restarts. */
  orderSeq?: number;
}

/** A live deployment inside the guest: one call per closed candle and per order event, each answering JSON `{ intents, logs, orderSeq }`. */
export interface LiveRun {
  candle(stateJson: string, candleJson: string, callStrategy: boolean): string;
  order(stateJson: string, eventJson: string): string;
  /** The time of the last candle or event. */
  now(): number;
}

/**
 * Builds the live `ctx` around the strategy's module. Plain code over plain data: the live
 * runtime calls it inside QuickJS, and tests call it in the host directly. The calls throw what
 * the strategy threw.
 */
export function createLiveRun(
  cfg: LiveRunConfig,
  ns: StrategyModule,
  host: { ind: HostInd; history: HostHistory },
  env: { logs: LogBuffer; random: () => number; startTime: number },
): LiveRun {
  const { logs, random } = env;
  let now = env.startTime;
  const { onCandle, onOrder } = strategyHandlers(ns);
  const symbols = cfg.symbols;
  const symIdx = createSymbolResolver(symbols, 'deployment');

  /* State from the host, replaced on every call. */
  let state: LiveState = { cash: 0, equity: 0, positions: [], orders: [] };
  let positionBySym: Record<string, LivePositionState> = Object.create(null);
  let views: Record<string, unknown> = Object.create(null);
  /* Open orders as the strategy sees them: the host's, plus this call's new ones, less this call's cancels. */
  let openOrders: LiveOrder[] = [];
  let intents: Array<{ kind: 'place'; order: LiveOrder } | { kind: 'cancel'; id: string }> = [];
  let orderSeq = cfg.orderSeq || 0;
  /* Exits per symbol, and those to attach when an order fills. */
  const sl: Record<string, number> = Object.create(null);
  const tp: Record<string, number> = Object.create(null);
  const trail: Record<string, Trail> = Object.create(null);
  const attach: Record<string, { sl: number; tp: number; trail: TrailSpec | null }> = Object.create(null);
  const candle: StrategyCandle = { symbol: '', time: 0, open: 0, high: 0, low: 0, close: 0, volume: 0 };

  function dropExits(symbol: string): void {
    delete sl[symbol];
    delete tp[symbol];
    delete trail[symbol];
    views[symbol] = undefined;
  }

  function setState(stateJson: string): void {
    state = jsonParse(stateJson) as LiveState;
    positionBySym = Object.create(null);
    views = Object.create(null);
    for (const p of state.positions) positionBySym[p.symbol] = p;
    for (const s of symbols) if (!positionBySym[s]) dropExits(s);
    openOrders = state.orders.slice();
    intents = [];
    logs.reset();
  }

  function trailLevel(symbol: string): number | null {
    const t = trail[symbol];
    const p = positionBySym[symbol];
    if (t === undefined || !p) return null;
    return trailingStopLevel(p.side === 'long' ? 1 : -1, t.best, t.distance, t.fraction);
  }

  function positionView(symbol: string) {
    const p = positionBySym[symbol];
    if (!p) return null;
    let v = views[symbol];
    if (v) return v;
    v = freeze({
      symbol,
      side: p.side,
      quantity: p.quantity,
      entryPrice: p.entryPrice,
      entryTime: p.entryTime,
      margin: p.margin,
      stopLoss: sl[symbol] === undefined ? null : sl[symbol],
      takeProfit: tp[symbol] === undefined ? null : tp[symbol],
      trailingStop: trailLevel(symbol),
      liquidationPrice: p.liquidationPrice,
      unrealizedPnl: p.unrealizedPnl,
    });
    views[symbol] = v;
    return v;
  }

  function snapshot(o: LiveOrder) {
    return freeze({
      id: o.id,
      symbol: o.symbol,
      side: o.side,
      type: o.type,
      price: o.price,
      quantity: o.quantity,
      size: o.size,
      stopLoss: o.stopLoss,
      takeProfit: o.takeProfit,
      reduceOnly: o.reduceOnly,
      tag: o.tag,
      time: o.time,
    });
  }

  function place(side: 'buy' | 'sell', symbol: string, opts: unknown): string {
    symIdx(symbol);
    const a = parseOrderArgs(opts);
    if (openOrders.length >= MAX_OPEN_ORDERS) throw new RangeError(`Too many open orders (at most ${MAX_OPEN_ORDERS})`);
    const o: LiveOrder = {
      id: `o${++orderSeq}`,
      symbol,
      side,
      type: ORDER_TYPE_NAMES[a.type]!,
      price: nullable(a.price),
      quantity: nullable(a.quantity),
      size: nullable(a.size),
      stopLoss: nullable(a.stopLoss),
      takeProfit: nullable(a.takeProfit),
      reduceOnly: a.reduceOnly,
      closeAll: false,
      tag: a.tag,
      time: now,
    };
    if (a.stopLoss === a.stopLoss || a.takeProfit === a.takeProfit || a.trail !== null) attach[o.id] = { sl: a.stopLoss, tp: a.takeProfit, trail: a.trail };
    openOrders.push(o);
    intents.push({ kind: 'place', order: o });
    return o.id;
  }

  function closeIntent(symbol: string, exit: ExitKind | null): string | null {
    for (const o of openOrders) if (o.symbol === symbol && o.closeAll) return o.id;
    const p = positionBySym[symbol];
    if (!p) return null;
    const o: LiveOrder = {
      id: `o${++orderSeq}`,
      symbol,
      side: p.side === 'long' ? 'sell' : 'buy',
      type: 'market',
      price: null,
      quantity: p.quantity,
      size: null,
      stopLoss: null,
      takeProfit: null,
      reduceOnly: true,
      closeAll: true,
      exit,
      tag: null,
      time: now,
    };
    openOrders.push(o);
    intents.push({ kind: 'place', order: o });
    return o.id;
  }

  function cancelOne(id: string): boolean {
    for (let j = 0; j < openOrders.length; j++) {
      if (openOrders[j]!.id === id) {
        openOrders.splice(j, 1);
        intents.push({ kind: 'cancel', id });
        return true;
      }
    }
    return false;
  }

  const history = createCandleHistory(symbols, cfg.timeframes, symIdx, host.history);
  const indicators = createIndicatorApi((code, symbol, call, values) => {
    const s = symIdx(symbol);
    const a = call.args;
    const n = INDICATOR_DEFS[INDICATOR_KINDS[code]!].outputs.length;
    for (let o = 0; o < n; o++) values[o] = host.ind(code, s, call.tf, a.length > 0 ? a[0]! : NaN, a.length > 1 ? a[1]! : NaN, a.length > 2 ? a[2]! : NaN, o);
    return -1;
  }, history.timeframeIndex);

  /** `ctx.setStopLoss` / `ctx.setTakeProfit`: a price, or null to remove; false when flat. */
  function setLevel(levels: Record<string, number>, symbol: string, price: unknown, what: string): boolean {
    symIdx(symbol);
    const p = optionalPrice(price, what);
    if (!positionBySym[symbol]) return false;
    if (p !== p) delete levels[symbol];
    else levels[symbol] = p;
    views[symbol] = undefined;
    return true;
  }

  const ctx = freeze({
    mode: 'live',
    params: deepFreeze(cfg.params),
    symbols: freeze(symbols.slice()),
    indicators,
    history: history.read,
    now: () => now,
    equity: () => state.equity,
    cash: () => state.cash,
    position: (symbol: string) => {
      symIdx(symbol);
      return positionView(symbol);
    },
    orders: (symbol?: string) => {
      if (symbol !== undefined) symIdx(symbol);
      const out = [];
      for (const o of openOrders) if (symbol === undefined || o.symbol === symbol) out.push(snapshot(o));
      return freeze(out);
    },
    buy: (symbol: string, opts?: unknown) => place('buy', symbol, opts),
    sell: (symbol: string, opts?: unknown) => place('sell', symbol, opts),
    close: (symbol: string) => {
      symIdx(symbol);
      return closeIntent(symbol, null);
    },
    cancel: (id: unknown) => (typeof id === 'string' ? cancelOne(id) : false),
    cancelAll: (symbol?: string) => {
      if (symbol !== undefined) symIdx(symbol);
      const ids: string[] = [];
      for (const o of openOrders) if (symbol === undefined || o.symbol === symbol) ids.push(o.id);
      for (const id of ids) cancelOne(id);
      return ids.length;
    },
    setStopLoss: (symbol: string, price: unknown) => setLevel(sl, symbol, price, 'stopLoss'),
    setTakeProfit: (symbol: string, price: unknown) => setLevel(tp, symbol, price, 'takeProfit'),
    setTrailingStop: (symbol: string, spec: unknown) => {
      symIdx(symbol);
      const t = optionalTrail(spec);
      if (!positionBySym[symbol]) return false;
      if (t === null) delete trail[symbol];
      else
        trail[symbol] = {
          distance: t.distance,
          fraction: t.fraction,
          best: candle.symbol === symbol ? candle.close : (positionBySym[symbol]!.entryPrice ?? Number.NaN),
        };
      views[symbol] = undefined;
      return true;
    },
    log: logs.log,
    random,
  });

  function result(): string {
    const out = jsonStringify({ intents, logs: logs.take(), orderSeq });
    intents = [];
    return out;
  }

  /*
   * The levels crossed by this candle become a close intent: stop-loss (or the trailing stop,
   * whichever is nearer the price) first, then take-profit; an untouched trailing stop then
   * follows the candle's high (long) or low (short).
   */
  function checkExits(c: StrategyCandle): void {
    const p = positionBySym[c.symbol];
    if (!p) return;
    const long = p.side === 'long';
    let stop = sl[c.symbol];
    let kind: ExitKind = 'stopLoss';
    const level = trailLevel(c.symbol);
    if (level !== null && (stop === undefined || (long ? level > stop : level < stop))) {
      stop = level;
      kind = 'trailingStop';
    }
    const t = tp[c.symbol];
    let hit: ExitKind | null = null;
    if (long) {
      if (stop !== undefined && c.low <= stop) hit = kind;
      else if (t !== undefined && c.high > t) hit = 'takeProfit';
    } else if (stop !== undefined && c.high >= stop) hit = kind;
    else if (t !== undefined && c.low < t) hit = 'takeProfit';
    if (hit === null) {
      const tr = trail[c.symbol];
      // A candle the position was opened in may have made its extreme before the entry.
      if (tr !== undefined && p.entryTime !== null && p.entryTime < c.time) {
        tr.best = ratchetBest(long ? 1 : -1, tr.best, c.high, c.low);
        views[c.symbol] = undefined;
      }
      return;
    }
    dropExits(c.symbol);
    closeIntent(c.symbol, hit);
  }

  function onCandleCall(stateJson: string, candleJson: string, callStrategy: boolean): string {
    setState(stateJson);
    const c = jsonParse(candleJson) as StrategyCandle;
    now = c.time;
    candle.symbol = c.symbol;
    candle.time = c.time;
    candle.open = c.open;
    candle.high = c.high;
    candle.low = c.low;
    candle.close = c.close;
    candle.volume = c.volume;
    checkExits(c);
    const s = symIdx(c.symbol);
    if (history.on[s] !== 0) history.append(s, c.time, c.open, c.high, c.low, c.close, c.volume);
    if (callStrategy) onCandle(ctx, candle);
    if (logs.hit) throw new Error('Log limit reached');
    return result();
  }

  function onOrderCall(stateJson: string, eventJson: string): string {
    setState(stateJson);
    const ev = jsonParse(eventJson) as { id: string; symbol: string; side: string; status: string; time: number; price: number | null };
    if (ev.time > now) now = ev.time;
    const a = attach[ev.id];
    if (a !== undefined && ev.status !== 'open') {
      delete attach[ev.id];
      const p = positionBySym[ev.symbol];
      if (ev.status === 'filled' && p && (p.side === 'long') === (ev.side === 'buy')) {
        if (a.sl === a.sl) sl[ev.symbol] = a.sl;
        if (a.tp === a.tp) tp[ev.symbol] = a.tp;
        if (a.trail !== null) trail[ev.symbol] = { distance: a.trail.distance, fraction: a.trail.fraction, best: ev.price ?? p.entryPrice ?? Number.NaN };
      }
    }
    if (typeof onOrder === 'function') onOrder(ctx, freeze(ev));
    if (logs.hit) throw new Error('Log limit reached');
    return result();
  }

  return { candle: onCandleCall, order: onOrderCall, now: () => now };
}

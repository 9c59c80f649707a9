import { LIMIT, MARKET, STOP } from '../model/codes.js';
import { fmt } from './format.js';
import { INF, NAN } from './intrinsics.js';

/*
 * The checks of `ctx.buy` / `ctx.sell` options and of the prices of `ctx.setStopLoss` and
 * friends, the same in a backtest and live (docs/strategy-api.md, "Orders"). A bad argument is
 * a TypeError thrown to the strategy, with a message that says what was expected.
 */

/** A trailing stop: a distance in price, or a fraction of the best price since entry. NaN where not given. */
export interface TrailSpec {
  distance: number;
  fraction: number;
}

/** Checked order options; numbers the strategy left out are NaN. */
export interface OrderArgs {
  type: number;
  price: number;
  quantity: number;
  size: number;
  stopLoss: number;
  takeProfit: number;
  trail: TrailSpec | null;
  reduceOnly: boolean;
  tag: string | null;
}

export const ORDER_TYPE_NAMES = ['market', 'limit', 'stop'] as const;

export function isPositiveNumber(v: unknown): v is number {
  return typeof v === 'number' && v > 0 && v < INF;
}

/** A stop-loss or take-profit price, or NaN for none (undefined or null). */
export function optionalPrice(v: unknown, what: string): number {
  if (v === undefined || v === null) return NAN;
  if (!isPositiveNumber(v)) throw new TypeError(`${what} must be a positive price, got ${fmt(v)}`);
  return v;
}

/** `{ distance }` (price) or `{ fraction }` (of the best price, below 1); null for none. */
export function optionalTrail(v: unknown): TrailSpec | null {
  if (v === undefined || v === null) return null;
  const spec = v as { distance?: unknown; fraction?: unknown };
  if (typeof v !== 'object' || (spec.distance === undefined) === (spec.fraction === undefined)) {
    throw new TypeError(`trailingStop must be { distance } (a price distance) or { fraction } (of the best price), got ${fmt(v)}`);
  }
  if (spec.distance !== undefined) {
    if (!isPositiveNumber(spec.distance)) throw new TypeError(`trailingStop.distance must be a positive price distance, got ${fmt(spec.distance)}`);
    return { distance: spec.distance, fraction: NAN };
  }
  if (!(typeof spec.fraction === 'number' && spec.fraction > 0 && spec.fraction < 1)) {
    throw new TypeError(`trailingStop.fraction must be a number in (0, 1), got ${fmt(spec.fraction)}`);
  }
  return { distance: NAN, fraction: spec.fraction };
}

/** A record for `readOrderArgs` to fill. */
export function newOrderArgs(): OrderArgs {
  return marketOrderArgs({} as OrderArgs, false);
}

/** Writes the options of a market order with no quantity, size, exits or tag into `out` (a close: `reduceOnly`), and answers it. */
export function marketOrderArgs(out: OrderArgs, reduceOnly: boolean): OrderArgs {
  out.type = MARKET;
  out.price = NAN;
  out.quantity = NAN;
  out.size = NAN;
  out.stopLoss = NAN;
  out.takeProfit = NAN;
  out.trail = null;
  out.reduceOnly = reduceOnly;
  out.tag = null;
  return out;
}

/** Options left out: no own properties, so every read answers undefined. */
const NO_OPTIONS: Record<string, unknown> = Object.freeze(Object.create(null));

/** Checks the options of `ctx.buy` / `ctx.sell`; throws a TypeError naming the first problem. */
export function parseOrderArgs(input: unknown): OrderArgs {
  return readOrderArgs(input, newOrderArgs());
}

/**
 * `parseOrderArgs` into `out`, whose every field it writes (nothing is written when it throws),
 * and answers `out`. The backtest reads straight into a recycled pending order: an object of
 * nine fields is costly to build in QuickJS, and copying one costly to fill.
 */
export function readOrderArgs(input: unknown, out: OrderArgs): OrderArgs {
  let opts = input as Record<string, unknown> | undefined | null;
  if (opts === undefined || opts === null) opts = NO_OPTIONS;
  else if (typeof opts !== 'object') throw new TypeError('order options must be an object');
  const { type, price, quantity, size, reduceOnly, tag, stopLoss, takeProfit, trailingStop } = opts;
  /*
   * Fast path: a market order of a size or a quantity and nothing else, as nearly every order is
   * (`{ size: 0.1 }`): half the tests of the full checks below, which it answers the same as.
   */
  if (
    type === undefined &&
    price === undefined &&
    reduceOnly === undefined &&
    tag === undefined &&
    stopLoss === undefined &&
    takeProfit === undefined &&
    trailingStop === undefined
  ) {
    if (quantity === undefined ? typeof size === 'number' && size > 0 && size <= 1 : size === undefined && isPositiveNumber(quantity)) {
      marketOrderArgs(out, false);
      if (quantity === undefined) out.size = size as number;
      else out.quantity = quantity as number;
      return out;
    }
  }
  const code = type === undefined || type === 'market' ? MARKET : type === 'limit' ? LIMIT : type === 'stop' ? STOP : -1;
  if (code < 0) throw new TypeError(`order type must be "market", "limit" or "stop", got ${fmt(type)}`);
  if (code !== MARKET && !isPositiveNumber(price)) throw new TypeError(`${type as string} orders need a positive price, got ${fmt(price)}`);
  if (code === MARKET && price !== undefined) throw new TypeError('market orders take no price: they fill at the next open');
  if ((quantity === undefined) === (size === undefined)) throw new TypeError('give either quantity (units) or size (fraction of equity), not both or neither');
  if (quantity !== undefined && !isPositiveNumber(quantity)) throw new TypeError(`quantity must be a positive number, got ${fmt(quantity)}`);
  if (size !== undefined && !(typeof size === 'number' && size > 0 && size <= 1))
    throw new TypeError(`size is a fraction of equity in (0, 1], got ${fmt(size)}`);
  if (reduceOnly !== undefined && typeof reduceOnly !== 'boolean') throw new TypeError('reduceOnly must be a boolean');
  if (tag !== undefined && !(typeof tag === 'string' && tag.length <= 100)) throw new TypeError('tag must be a string of at most 100 characters');
  // The exits most orders leave out are tested here, sparing a call each (the functions answer the same).
  const sl = stopLoss === undefined ? NAN : optionalPrice(stopLoss, 'stopLoss');
  const tp = takeProfit === undefined ? NAN : optionalPrice(takeProfit, 'takeProfit');
  const trail = trailingStop === undefined ? null : optionalTrail(trailingStop);
  out.type = code;
  out.price = code === MARKET ? NAN : (price as number);
  out.quantity = quantity === undefined ? NAN : (quantity as number);
  out.size = size === undefined ? NAN : (size as number);
  out.stopLoss = sl;
  out.takeProfit = tp;
  out.trail = trail;
  out.reduceOnly = reduceOnly === true;
  out.tag = tag === undefined ? null : (tag as string);
  return out;
}

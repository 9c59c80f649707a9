import { GUEST_DETERMINISM_SOURCE, GUEST_ERRORS_SOURCE, GUEST_FORMAT_SOURCE } from './guest-prelude.js';

/**
 * The trusted runtime evaluated inside a live deployment's QuickJS context before the strategy.
 * It builds the SAME `ctx` as the backtest runtime (guest-runtime.ts, docs/strategy-api.md), but
 * nothing is simulated here:
 * - `ctx.buy/sell/close/cancel/cancelAll` validate their arguments exactly as in a backtest and
 *   record *intents*, which the host turns into exchange orders after the call returns;
 * - `ctx.position/orders/equity/cash` read the account state the host passes in with each call
 *   (what the exchange and the Store say), plus the intents of the current call;
 * - `onOrder` receives the fills, cancellations and rejections the host feeds in;
 * - stop-loss and take-profit prices are kept here per symbol and checked on each closed candle:
 *   a crossed level becomes a reduce-only market close intent whose fill `onOrder` sees as
 *   `stopLoss` or `takeProfit`.
 * Indicators are computed by the host (trusted code in the child process) through `hostInd`.
 *
 * Plain ES5-style JavaScript in a string: it never runs in the host's V8. Data crosses as JSON.
 */
export const GUEST_LIVE_RUNTIME_SOURCE = String.raw`(function (bootJson) {
'use strict';
var boot = JSON.parse(bootJson);
var G = globalThis;
var TypeErr = TypeError, RangeErr = RangeError, Err = Error;
var freeze = Object.freeze, create = Object.create, keys = Object.keys;
var jsonStringify = JSON.stringify, jsonParse = JSON.parse, Str = String;
var mathAbs = Math.abs;
var now = boot.startTime;

${GUEST_DETERMINISM_SOURCE}

/* ---- logging: limits are per call (a live deployment runs for ever) ---- */
var maxLogLines = boot.maxLogLines, maxLogBytes = boot.maxLogBytes;
var logs = [], logLines = 0, logBytes = 0, logLimitHit = false, logLimitScope = ' in one call';
${GUEST_FORMAT_SOURCE}
function logAt(level, args) {
  if (logLimitHit) throw new Err('Log limit reached');
  var line = '';
  for (var i = 0; i < args.length; i++) line += (i ? ' ' : '') + fmt(args[i]);
  if (line.length > 2000) line = line.slice(0, 2000) + '...';
  logLines++;
  logBytes += line.length;
  if (logLines > maxLogLines || logBytes > maxLogBytes) { logLimitHit = true; throw new Err('Log limit reached'); }
  logs.push([now, level, line]);
}
function log() { logAt('info', arguments); }
G.console = freeze({
  log: log, info: log,
  warn: function () { logAt('warn', arguments); },
  error: function () { logAt('error', arguments); },
  debug: function () { logAt('debug', arguments); }
});

${GUEST_ERRORS_SOURCE}
var KIND_CODES = { sma: 0, ema: 1, rsi: 2, atr: 3, bollinger: 4 };
var live = null;

function start(ns, hostInd, cfgJson) {
  var cfg = jsonParse(cfgJson);
  var onCandle = ns.onCandle, onOrder = ns.onOrder;
  if (typeof onCandle !== 'function') throw new TypeErr('The strategy must export a function onCandle(ctx, candle)');
  if (onOrder !== undefined && typeof onOrder !== 'function') throw new TypeErr('onOrder, when exported, must be a function');
  var symNames = cfg.symbols, nSym = symNames.length, symIndex = create(null);
  for (var si = 0; si < nSym; si++) symIndex[symNames[si]] = si;

  /* State from the host, replaced on every call. */
  var state = { cash: 0, equity: 0, positions: [], orders: [] };
  var positionBySym = create(null), views = create(null);
  /* Open orders as the strategy sees them: the host's, plus this call's new ones, less this call's cancels. */
  var openOrders = [];
  var intents = [];
  var orderSeq = cfg.orderSeq || 0;
  /* Stop-loss and take-profit per symbol, and those to attach when an order fills. */
  var sl = create(null), tp = create(null), attach = create(null);
  var candle = { symbol: '', time: 0, open: 0, high: 0, low: 0, close: 0, volume: 0 };

  function symIdx(symbol) {
    var i = typeof symbol === 'string' ? symIndex[symbol] : undefined;
    if (i === undefined) throw new TypeErr('Unknown symbol ' + fmt(symbol) + '; this deployment trades ' + symNames.join(', '));
    return i;
  }
  function posNum(v) { return typeof v === 'number' && v > 0 && v < Infinity; }
  function optionalPrice(v, what) {
    if (v === undefined || v === null) return null;
    if (!posNum(v)) throw new TypeErr(what + ' must be a positive price, got ' + fmt(v));
    return v;
  }

  function setState(stateJson) {
    state = jsonParse(stateJson);
    positionBySym = create(null);
    views = create(null);
    for (var i = 0; i < state.positions.length; i++) positionBySym[state.positions[i].symbol] = state.positions[i];
    for (var s in sl) if (!positionBySym[s]) { delete sl[s]; delete tp[s]; }
    openOrders = state.orders.slice();
    intents = [];
    logs.length = 0; logLines = 0; logBytes = 0; logLimitHit = false;
  }
  function positionView(symbol) {
    var p = positionBySym[symbol];
    if (!p) return null;
    var v = views[symbol];
    if (v) return v;
    v = freeze({ symbol: symbol, side: p.side, quantity: p.quantity, entryPrice: p.entryPrice, entryTime: p.entryTime,
      margin: p.margin, stopLoss: sl[symbol] === undefined ? null : sl[symbol], takeProfit: tp[symbol] === undefined ? null : tp[symbol],
      liquidationPrice: p.liquidationPrice, unrealizedPnl: p.unrealizedPnl });
    views[symbol] = v;
    return v;
  }
  function snapshot(o) {
    return freeze({ id: o.id, symbol: o.symbol, side: o.side, type: o.type, price: o.price, quantity: o.quantity, size: o.size,
      stopLoss: o.stopLoss, takeProfit: o.takeProfit, reduceOnly: o.reduceOnly, tag: o.tag, time: o.time });
  }
  function place(side, symbol, opts) {
    symIdx(symbol);
    if (opts === undefined || opts === null) opts = {};
    else if (typeof opts !== 'object') throw new TypeErr('order options must be an object');
    var type = opts.type, price = opts.price, quantity = opts.quantity, size = opts.size, reduceOnly = opts.reduceOnly, tag = opts.tag;
    if (type === undefined) type = 'market';
    if (type !== 'market' && type !== 'limit' && type !== 'stop') throw new TypeErr('order type must be "market", "limit" or "stop", got ' + fmt(type));
    if (type !== 'market' && !posNum(price)) throw new TypeErr(type + ' orders need a positive price, got ' + fmt(price));
    if (type === 'market' && price !== undefined) throw new TypeErr('market orders take no price: they fill at the next open');
    if ((quantity === undefined) === (size === undefined)) throw new TypeErr('give either quantity (units) or size (fraction of equity), not both or neither');
    if (quantity !== undefined && !posNum(quantity)) throw new TypeErr('quantity must be a positive number, got ' + fmt(quantity));
    if (size !== undefined && !(typeof size === 'number' && size > 0 && size <= 1)) throw new TypeErr('size is a fraction of equity in (0, 1], got ' + fmt(size));
    if (reduceOnly !== undefined && typeof reduceOnly !== 'boolean') throw new TypeErr('reduceOnly must be a boolean');
    if (tag !== undefined && !(typeof tag === 'string' && tag.length <= 100)) throw new TypeErr('tag must be a string of at most 100 characters');
    if (openOrders.length >= 1000) throw new RangeErr('Too many open orders (1,000)');
    var o = { id: 'o' + (++orderSeq), symbol: symbol, side: side, type: type, price: type === 'market' ? null : price,
      quantity: quantity === undefined ? null : quantity, size: size === undefined ? null : size,
      stopLoss: optionalPrice(opts.stopLoss, 'stopLoss'), takeProfit: optionalPrice(opts.takeProfit, 'takeProfit'),
      reduceOnly: reduceOnly === true, closeAll: false, tag: tag === undefined ? null : tag, time: now };
    if (o.stopLoss !== null || o.takeProfit !== null) attach[o.id] = { sl: o.stopLoss, tp: o.takeProfit };
    openOrders.push(o);
    intents.push({ kind: 'place', order: o });
    return o.id;
  }
  function closeIntent(symbol, type) {
    for (var j = 0; j < openOrders.length; j++) if (openOrders[j].symbol === symbol && openOrders[j].closeAll) return openOrders[j].id;
    var p = positionBySym[symbol];
    if (!p) return null;
    var o = { id: 'o' + (++orderSeq), symbol: symbol, side: p.side === 'long' ? 'sell' : 'buy', type: 'market', price: null,
      quantity: p.quantity, size: null, stopLoss: null, takeProfit: null, reduceOnly: true, closeAll: true, exit: type, tag: null, time: now };
    openOrders.push(o);
    intents.push({ kind: 'place', order: o });
    return o.id;
  }
  function cancelOne(id) {
    for (var j = 0; j < openOrders.length; j++) {
      if (openOrders[j].id === id) { openOrders.splice(j, 1); intents.push({ kind: 'cancel', id: id }); return true; }
    }
    return false;
  }

  var indicators = freeze({
    sma: function sma(symbol, period) { return hostInd(0, symIdx(symbol), period, 0, 0); },
    ema: function ema(symbol, period) { return hostInd(1, symIdx(symbol), period, 0, 0); },
    rsi: function rsi(symbol, period) { return hostInd(2, symIdx(symbol), period === undefined ? 14 : period, 0, 0); },
    atr: function atr(symbol, period) { return hostInd(3, symIdx(symbol), period === undefined ? 14 : period, 0, 0); },
    bollinger: function bollinger(symbol, period, multiplier) {
      var s = symIdx(symbol);
      if (period === undefined) period = 20;
      if (multiplier === undefined) multiplier = 2;
      return freeze({ upper: hostInd(4, s, period, multiplier, 0), middle: hostInd(4, s, period, multiplier, 1), lower: hostInd(4, s, period, multiplier, 2) });
    }
  });

  var ctx = freeze({
    mode: 'live',
    params: deepFreeze(cfg.params),
    symbols: freeze(symNames.slice()),
    indicators: indicators,
    now: function () { return now; },
    equity: function () { return state.equity; },
    cash: function () { return state.cash; },
    position: function (symbol) { symIdx(symbol); return positionView(symbol); },
    orders: function (symbol) {
      if (symbol !== undefined) symIdx(symbol);
      var out = [];
      for (var j = 0; j < openOrders.length; j++) if (symbol === undefined || openOrders[j].symbol === symbol) out.push(snapshot(openOrders[j]));
      return freeze(out);
    },
    buy: function (symbol, opts) { return place('buy', symbol, opts); },
    sell: function (symbol, opts) { return place('sell', symbol, opts); },
    close: function (symbol) { symIdx(symbol); return closeIntent(symbol, null); },
    cancel: function (id) { return typeof id === 'string' ? cancelOne(id) : false; },
    cancelAll: function (symbol) {
      if (symbol !== undefined) symIdx(symbol);
      var ids = [];
      for (var j = 0; j < openOrders.length; j++) if (symbol === undefined || openOrders[j].symbol === symbol) ids.push(openOrders[j].id);
      for (var k = 0; k < ids.length; k++) cancelOne(ids[k]);
      return ids.length;
    },
    setStopLoss: function (symbol, price) {
      symIdx(symbol);
      var p = optionalPrice(price, 'stopLoss');
      if (!positionBySym[symbol]) return false;
      if (p === null) delete sl[symbol]; else sl[symbol] = p;
      views[symbol] = undefined;
      return true;
    },
    setTakeProfit: function (symbol, price) {
      symIdx(symbol);
      var p = optionalPrice(price, 'takeProfit');
      if (!positionBySym[symbol]) return false;
      if (p === null) delete tp[symbol]; else tp[symbol] = p;
      views[symbol] = undefined;
      return true;
    },
    log: log,
    random: random
  });

  function result() {
    var out = jsonStringify({ intents: intents, logs: logs, orderSeq: orderSeq });
    intents = [];
    logs.length = 0;
    return out;
  }

  /* A stop-loss or take-profit crossed by this candle becomes a close intent (stop-loss first). */
  function checkExits(c) {
    var p = positionBySym[c.symbol];
    if (!p) return;
    var s = sl[c.symbol], t = tp[c.symbol], hit = null;
    if (p.side === 'long') { if (s !== undefined && c.low <= s) hit = 'stopLoss'; else if (t !== undefined && c.high > t) hit = 'takeProfit'; }
    else { if (s !== undefined && c.high >= s) hit = 'stopLoss'; else if (t !== undefined && c.low < t) hit = 'takeProfit'; }
    if (hit === null) return;
    delete sl[c.symbol]; delete tp[c.symbol]; views[c.symbol] = undefined;
    closeIntent(c.symbol, hit);
  }

  function onCandleCall(stateJson, candleJson, callStrategy) {
    try {
      setState(stateJson);
      var c = jsonParse(candleJson);
      now = c.time;
      candle.symbol = c.symbol; candle.time = c.time; candle.open = c.open; candle.high = c.high;
      candle.low = c.low; candle.close = c.close; candle.volume = c.volume;
      checkExits(c);
      if (callStrategy) onCandle(ctx, candle);
      if (logLimitHit) throw new Err('Log limit reached');
      return result();
    } catch (e) {
      describe(e);
      return null;
    }
  }

  function onOrderCall(stateJson, eventJson) {
    try {
      setState(stateJson);
      var ev = jsonParse(eventJson);
      if (ev.time > now) now = ev.time;
      var a = attach[ev.id];
      if (a !== undefined && ev.status !== 'open') {
        delete attach[ev.id];
        var p = positionBySym[ev.symbol];
        if (ev.status === 'filled' && p && (p.side === 'long') === (ev.side === 'buy')) {
          if (a.sl !== null) sl[ev.symbol] = a.sl;
          if (a.tp !== null) tp[ev.symbol] = a.tp;
        }
      }
      if (typeof onOrder === 'function') onOrder(ctx, freeze(ev));
      if (logLimitHit) throw new Err('Log limit reached');
      return result();
    } catch (e) {
      describe(e);
      return null;
    }
  }

  live = { candle: onCandleCall, order: onOrderCall };
  return true;
}

return freeze({
  readMeta: readMeta,
  start: start,
  candle: function (stateJson, candleJson, call) { return live.candle(stateJson, candleJson, call); },
  order: function (stateJson, eventJson) { return live.order(stateJson, eventJson); },
  lastError: lastError,
  describe: function (e) { describe(e); return lastError(); }
});
})`;

/** Indicator kinds by the code the live guest passes to `hostInd`. */
export const LIVE_INDICATOR_KINDS = ['sma', 'ema', 'rsi', 'atr', 'bollinger'] as const;

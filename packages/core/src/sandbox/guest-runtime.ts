import { GUEST_DETERMINISM_SOURCE, GUEST_ERRORS_SOURCE, GUEST_FORMAT_SOURCE } from './guest-prelude.js';

/**
 * The trusted runtime evaluated inside every QuickJS context before the strategy: it replaces
 * the clock and `Math.random`, builds `ctx`, and drives the whole candle loop of a backtest
 * inside the guest (orders, fills, positions, exits), so the host crosses into the guest
 * once per batch of candles, never once per candle. It is our code, not the user's; the user's
 * module cannot reach its closure.
 *
 * Written as plain ES5-style JavaScript in a string: it never runs in the host's V8. Numbers
 * travel in and out as Float64Arrays:
 * - batch in: six columns of `n` values (time, open, high, low, close, volume), then one block
 *   of `n + 1` values per registered indicator series (index 0 is the value before the batch),
 *   then `n` symbol indexes as 32-bit integers (`-(s + 1)` for a warm-up candle: no onCandle).
 * - account changes out: `STATE_FIELDS` numbers per candle whose fills changed the account
 *   (`[batch index, symbol, quantity, entry price, cash, realized]`, after the fills). The host
 *   marks equity at every close from these, so the guest loop does no per-candle bookkeeping.
 * - trades out: `TRADE_FIELDS` numbers per closed trade.
 *
 * The fill model implemented here is documented case by case in docs/backtest-model.md.
 */
export const GUEST_RUNTIME_SOURCE = String.raw`(function (bootJson) {
'use strict';
var boot = JSON.parse(bootJson);
var G = globalThis;
var F64 = Float64Array, TypeErr = TypeError, RangeErr = RangeError, Err = Error;
var freeze = Object.freeze, create = Object.create, keys = Object.keys, isArray = Array.isArray;
var jsonStringify = JSON.stringify, jsonParse = JSON.parse, Str = String;
var mathAbs = Math.abs, isFin = Number.isFinite, isInt = Number.isInteger;
var now = boot.startTime;

${GUEST_DETERMINISM_SOURCE}

/* ---- logging ---- */
var maxLogLines = boot.maxLogLines, maxLogBytes = boot.maxLogBytes;
var logs = [], logLines = 0, logBytes = 0, logLimitHit = false, logLimitScope = '';
${GUEST_FORMAT_SOURCE}
function log() {
  if (logLimitHit) throw new Err('Log limit reached');
  var line = '';
  for (var i = 0; i < arguments.length; i++) line += (i ? ' ' : '') + fmt(arguments[i]);
  if (line.length > 2000) line = line.slice(0, 2000) + '...';
  logLines++;
  logBytes += line.length;
  if (logLines > maxLogLines || logBytes > maxLogBytes) { logLimitHit = true; throw new Err('Log limit reached'); }
  logs.push(now, line);
}
G.console = freeze({ log: log, info: log, warn: log, error: log, debug: log });

${GUEST_ERRORS_SOURCE}
function readExports(ns) {
  var out = [], names = keys(ns);
  for (var i = 0; i < names.length; i++) out.push(names[i] + ':' + typeof ns[names[i]]);
  return jsonStringify(out);
}

/* ---- the backtest engine, created by start() ---- */
var MARKET = 0, LIMIT = 1, STOP = 2;
var R_MARKET = 0, R_LIMIT = 1, R_STOP = 2, R_SL = 3, R_TP = 4, R_LIQ = 5, R_END = 6;
var REASONS = ['market', 'limit', 'stop', 'stopLoss', 'takeProfit', 'liquidation', 'end'];
var TRADE_FIELDS = 10, STATE_FIELDS = 6;
var KIND_NAMES = ['sma', 'ema', 'rsi', 'atr', 'bollinger'];

var run = null;

function start(ns, hostRegister, runJson) {
  var cfg = jsonParse(runJson);
  var onCandle = ns.onCandle, onOrder = ns.onOrder;
  if (typeof onCandle !== 'function') throw new TypeErr('The strategy must export a function onCandle(ctx, candle)');
  if (onOrder !== undefined && typeof onOrder !== 'function') throw new TypeErr('onOrder, when exported, must be a function');
  var hasOnOrder = typeof onOrder === 'function';

  var nSym = cfg.symbols.length, symNames = cfg.symbols, multi = nSym > 1;
  var symIndex = create(null);
  for (var si = 0; si < nSym; si++) symIndex[symNames[si]] = si;
  var lev = cfg.leverage, slip = cfg.slippage, maker = cfg.maker, taker = cfg.taker, mmr = cfg.maintenanceMarginRate;
  var allowShort = cfg.allowShort, useLiq = cfg.liquidation, maxInd = cfg.maxIndicators;
  var initial = cfg.initialCapital, cash = initial, marginTotal = 0, openCount = 0;

  var qty = new F64(nSym), entry = new F64(nSym), entryTime = new F64(nSym), margin = new F64(nSym), openFees = new F64(nSym);
  var sl = new F64(nSym).fill(NaN), tp = new F64(nSym).fill(NaN), slTime = new F64(nSym), tpTime = new F64(nSym), liq = new F64(nSym).fill(NaN);
  var lastPrice = new F64(nSym).fill(NaN), lastTime = cfg.lastTimes, lastClose = cfg.lastCloses, realized = new F64(nSym);
  var exBelow = new F64(nSym).fill(-Infinity), exAbove = new F64(nSym).fill(Infinity);
  var FAST_PERIODS = 4096;
  var views = [], pending = [], candles = [], smaM = [], emaM = [], rsiM = [], atrM = [], bbM = [];
  for (si = 0; si < nSym; si++) {
    views.push(null); pending.push([]);
    candles.push({ symbol: symNames[si], time: 0, open: 0, high: 0, low: 0, close: 0, volume: 0 });
    smaM.push(null); emaM.push(null); rsiM.push(null); atrM.push(null); bbM.push(create(null));
  }
  var pendingTotal = 0, orderSeq = 0, eventSeq = 0, pendingCount = new F64(nSym);
  var events = [];
  var TR = new F64(TRADE_FIELDS * 256), trCount = 0;
  var ST = new F64(STATE_FIELDS * 256), stCount = 0, changed = false;
  var freeOrders = [];
  var readIdx = 0, batchNo = 0;
  var IND = new F64(0), stride = 1, indCount = 0, bbCache = [];
  /* The symbol of the last ctx call, and its period maps: most calls name the candle's symbol again. */
  var lastSymName = null, lastSymIdx = -1, curSma = null, curEma = null, curRsi = null, curAtr = null;

  function symIdx(symbol) {
    if (symbol === lastSymName) return lastSymIdx;
    var i = typeof symbol === 'string' ? symIndex[symbol] : undefined;
    if (i === undefined) throw new TypeErr('Unknown symbol ' + fmt(symbol) + '; this run trades ' + symNames.join(', '));
    lastSymName = symbol; lastSymIdx = i;
    curSma = smaM[i]; curEma = emaM[i]; curRsi = rsiM[i]; curAtr = atrM[i];
    return i;
  }
  function posNum(v) { return typeof v === 'number' && v > 0 && v < Infinity; }

  /* ---- accounting ---- */
  function recordTrade(s, dir, et, ep, xt, xp, q, pnl, fees, reason) {
    if ((trCount + 1) * TRADE_FIELDS > TR.length) { var bigger = new F64(TR.length * 2); bigger.set(TR); TR = bigger; }
    var b = trCount * TRADE_FIELDS;
    TR[b] = s; TR[b + 1] = dir; TR[b + 2] = et; TR[b + 3] = ep; TR[b + 4] = xt; TR[b + 5] = xp;
    TR[b + 6] = q; TR[b + 7] = pnl; TR[b + 8] = fees; TR[b + 9] = reason;
    trCount++;
  }
  /* Equity now: cash plus every open position marked at its last price (last close or fill). */
  function equityNow() {
    var e = cash;
    for (var k = 0; k < nSym; k++) if (qty[k] !== 0) e += qty[k] * (lastPrice[k] - entry[k]);
    return e;
  }
  /* Records symbol s's position and the cash after the fills of candle i, for the host's marks. */
  function recordState(i, s) {
    if ((stCount + 1) * STATE_FIELDS > ST.length) { var bigger = new F64(ST.length * 2); bigger.set(ST); ST = bigger; }
    var b = stCount * STATE_FIELDS;
    ST[b] = i; ST[b + 1] = s; ST[b + 2] = qty[s]; ST[b + 3] = entry[s]; ST[b + 4] = cash; ST[b + 5] = realized[s];
    stCount++;
  }
  function updateLiq(s) {
    var q = qty[s];
    if (!useLiq || q === 0) liq[s] = NaN;
    else liq[s] = q > 0 ? entry[s] * (1 - 1 / lev + mmr) : entry[s] * (1 + 1 / lev - mmr);
    updateExitLevels(s);
  }
  /* Prices beyond which an exit may trigger, so the loop skips quiet candles cheaply. */
  function updateExitLevels(s) {
    var q = qty[s], a = sl[s], b = liq[s], t = tp[s];
    if (q > 0) {
      exBelow[s] = a === a ? (b === b && b > a ? b : a) : b === b ? b : -Infinity;
      exAbove[s] = t === t ? t : Infinity;
    } else if (q < 0) {
      exAbove[s] = a === a ? (b === b && b < a ? b : a) : b === b ? b : Infinity;
      exBelow[s] = t === t ? t : -Infinity;
    } else { exBelow[s] = -Infinity; exAbove[s] = Infinity; }
  }
  function flatten(s) {
    marginTotal -= margin[s];
    qty[s] = 0; entry[s] = 0; margin[s] = 0; openFees[s] = 0;
    sl[s] = NaN; tp[s] = NaN; liq[s] = NaN;
    openCount--;
    views[s] = null;
    updateExitLevels(s);
  }
  /* One fill of q units (q > 0) on side +1 (buy) or -1 (sell) at px. */
  function applyFill(s, side, q, px, feeRate, t, reason) {
    var fee = q * px * feeRate;
    var cur = qty[s];
    cash -= fee; realized[s] -= fee;
    if (cur === 0 || (cur > 0) === (side > 0)) {
      var a0 = mathAbs(cur), a1 = a0 + q;
      entry[s] = (a0 * entry[s] + q * px) / a1;
      if (cur === 0) { entryTime[s] = t; openCount++; }
      margin[s] += q * px / lev; marginTotal += q * px / lev;
      openFees[s] += fee;
      qty[s] = cur + side * q;
    } else {
      var a = mathAbs(cur), dir = cur > 0 ? 1 : -1;
      var closeQ = q < a ? q : a;
      var gross = closeQ * (px - entry[s]) * dir;
      var entryFee = openFees[s] * closeQ / a, exitFee = fee * closeQ / q;
      cash += gross; realized[s] += gross;
      recordTrade(s, dir, entryTime[s], entry[s], t, px, closeQ, gross - entryFee - exitFee, entryFee + exitFee, reason);
      var openQ = q - closeQ;
      if (closeQ >= a * (1 - 1e-12)) {
        flatten(s);
      } else {
        openFees[s] -= entryFee;
        var freed = margin[s] * closeQ / a;
        margin[s] -= freed; marginTotal -= freed;
        qty[s] = dir * (a - closeQ);
      }
      if (openQ > q * 1e-12) {
        qty[s] = side * openQ; entry[s] = px; entryTime[s] = t; openCount++;
        margin[s] = openQ * px / lev; marginTotal += margin[s];
        openFees[s] = fee * openQ / q;
        sl[s] = NaN; tp[s] = NaN;
      }
    }
    if (qty[s] !== 0) lastPrice[s] = px;
    updateLiq(s);
    views[s] = null;
    changed = true;
  }

  /* ---- order events for onOrder ---- */
  function emit(id, s, side, type, status, q, px, fee, reason, tag) {
    if (!hasOnOrder) return;
    events.push(freeze({ id: id, symbol: symNames[s], side: side > 0 ? 'buy' : 'sell', type: type, status: status,
      quantity: q, price: px, fee: fee, time: now, reason: reason, tag: tag }));
  }
  function orderEvent(ord, status, q, px, fee, reason) {
    emit(ord.id, ord.s, ord.side, REASONS[ord.type], status, q, px, fee, reason, ord.tag);
  }
  function flushEvents() {
    for (var k = 0; k < events.length; k++) {
      onOrder(ctx, events[k]);
      if (logLimitHit) throw new Err('Log limit reached');
    }
    events.length = 0;
  }

  function closeAt(s, px, feeRate, t, reason) {
    var q = qty[s], a = mathAbs(q), side = q > 0 ? -1 : 1;
    applyFill(s, side, a, px, feeRate, t, reason);
    emit('x' + (++eventSeq), s, side, REASONS[reason], 'filled', a, px, a * px * feeRate, null, null);
  }
  function liquidate(s, t) {
    var q = qty[s], a = mathAbs(q), dir = q > 0 ? 1 : -1, px = liq[s];
    var gross = a * (px - entry[s]) * dir;
    var penalty = margin[s] + gross;
    if (penalty < 0) penalty = 0;
    cash += gross - penalty; realized[s] += gross - penalty; changed = true;
    recordTrade(s, dir, entryTime[s], entry[s], t, px, a, gross - openFees[s] - penalty, openFees[s] + penalty, R_LIQ);
    flatten(s);
    emit('x' + (++eventSeq), s, -dir, 'liquidation', 'filled', a, px, penalty, 'loss reached the isolated margin less the maintenance margin', null);
  }
  /* Stop-loss, liquidation and (when allowTP) take-profit of the open position over one candle. */
  function checkExits(s, t, o, h, l, allowTP) {
    var q = qty[s], stopPx = slTime[s] < t ? sl[s] : NaN, tpPx = allowTP && tpTime[s] < t ? tp[s] : NaN, lq = liq[s], px;
    if (q > 0) {
      if (l <= stopPx) {
        px = (o < stopPx ? o : stopPx) * (1 - slip);
        if (px <= lq) liquidate(s, t); else closeAt(s, px, taker, t, R_SL);
        return;
      }
      if (l <= lq) { liquidate(s, t); return; }
      if (h > tpPx) closeAt(s, o > tpPx ? o : tpPx, maker, t, R_TP);
    } else {
      if (h >= stopPx) {
        px = (o > stopPx ? o : stopPx) * (1 + slip);
        if (px >= lq) liquidate(s, t); else closeAt(s, px, taker, t, R_SL);
        return;
      }
      if (h >= lq) { liquidate(s, t); return; }
      if (l < tpPx) closeAt(s, o < tpPx ? o : tpPx, maker, t, R_TP);
    }
  }
  /* Fills one order at px (slippage already applied), or rejects or cancels it. */
  function executeOrder(ord, px, feeRate, t) {
    var s = ord.s, cur = qty[s], a = mathAbs(cur), q;
    if (ord.closeAll) {
      if (cur === 0) { orderEvent(ord, 'cancelled', 0, NaN, 0, 'no position to close'); return; }
      q = a;
    } else if (ord.size === ord.size) {
      q = ord.size * equityNow() * lev / px;
    } else q = ord.qty;
    if (!(q > 0 && q < Infinity)) { orderEvent(ord, 'rejected', 0, NaN, 0, 'order quantity is not positive: equity is ' + equityNow()); return; }
    if (ord.reduceOnly) {
      if (cur === 0 || (cur > 0) === (ord.side > 0)) { orderEvent(ord, 'cancelled', 0, NaN, 0, 'reduce-only order has no position to reduce'); return; }
      if (q > a) q = a;
    }
    if (!allowShort && ord.side < 0) {
      if (cur <= 0) { orderEvent(ord, 'rejected', 0, NaN, 0, 'SPOT markets cannot be sold short'); return; }
      if (q > a) q = a;
    }
    var same = cur === 0 || (cur > 0) === (ord.side > 0);
    var opening = same ? q : q - a;
    if (opening > q * 1e-12) {
      var freed = same ? 0 : margin[s];
      var avail = equityNow() - (marginTotal - freed);
      var need = opening * px / lev;
      if (need > avail * (1 + 1e-9)) {
        orderEvent(ord, 'rejected', 0, NaN, 0, 'insufficient margin: needs ' + need + ', available ' + avail);
        return;
      }
    }
    applyFill(s, ord.side, q, px, feeRate, t, ord.type);
    if (qty[s] !== 0 && (qty[s] > 0) === (ord.side > 0)) {
      if (ord.sl === ord.sl) { sl[s] = ord.sl; slTime[s] = ord.time; }
      if (ord.tp === ord.tp) { tp[s] = ord.tp; tpTime[s] = ord.time; }
      updateExitLevels(s);
    }
    orderEvent(ord, 'filled', q, px, q * px * feeRate, null);
  }
  /* Everything that happens to symbol s between the previous close and this candle's close. */
  function processBar(s, t, o, h, l) {
    var list = pending[s], j, ord, px;
    if (list.length !== 0) {
      for (j = 0; j < list.length;) {
        ord = list[j];
        if (ord.type === MARKET && ord.time < t) {
          takeOrder(list, j, s);
          var side = ord.closeAll ? (qty[s] > 0 ? -1 : 1) : ord.side;
          ord.side = side;
          executeOrder(ord, o * (1 + side * slip), taker, t);
          freeOrders.push(ord);
        } else j++;
      }
    }
    if (qty[s] !== 0) checkExits(s, t, o, h, l, true);
    list = pending[s];
    if (list.length === 0) return;
    for (j = 0; j < list.length;) {
      ord = list[j];
      if (ord.type === MARKET || ord.time >= t) { j++; continue; }
      px = NaN;
      var feeRate = maker, p = ord.price;
      if (ord.type === LIMIT) {
        if (ord.side > 0) { if (l < p) px = o < p ? o : p; }
        else if (h > p) px = o > p ? o : p;
      } else {
        feeRate = taker;
        if (ord.side > 0) { if (h >= p) px = (o > p ? o : p) * (1 + slip); }
        else if (l <= p) px = (o < p ? o : p) * (1 - slip);
      }
      if (px === px) {
        takeOrder(list, j, s);
        var before = qty[s];
        executeOrder(ord, px, feeRate, t);
        freeOrders.push(ord);
        var after = qty[s];
        if (after !== 0 && (before === 0 || (after > 0) !== (before > 0) || mathAbs(after) > mathAbs(before))) checkExits(s, t, px, h, l, false);
      } else j++;
    }
  }

  /* ---- indicators: computed by the host per batch, read here by index ---- */
  function register(map, key, kind, s, period, mult) {
    if (typeof period !== 'number' || !isInt(period) || period < 1 || period > 100000) {
      throw new TypeErr(KIND_NAMES[kind] + ' period must be an integer from 1 to 100000, got ' + fmt(period));
    }
    if (kind === 4 && !(typeof mult === 'number' && mult > 0 && mult <= 100)) throw new TypeErr('bollinger multiplier must be a number in (0, 100], got ' + fmt(mult));
    var k = kind === 4 ? 3 : 1;
    if (indCount + k > maxInd) throw new RangeErr('A strategy can use at most ' + maxInd + ' indicator series');
    var block = new F64(hostRegister(kind, s, period, mult));
    var id = indCount;
    var grown = new F64((indCount + k) * stride);
    grown.set(IND.subarray(0, indCount * stride));
    grown.set(block, indCount * stride);
    IND = grown;
    indCount += k;
    map[key] = id;
    return id;
  }
  function periodMap(maps, s) {
    var m = maps[s];
    if (m === null) {
      m = maps[s] = new Int16Array(FAST_PERIODS);
      curSma = smaM[lastSymIdx]; curEma = emaM[lastSymIdx]; curRsi = rsiM[lastSymIdx]; curAtr = atrM[lastSymIdx];
    }
    return m;
  }
  function slowId(maps, kind, period) {
    var m = maps[lastSymIdx];
    if (m === null) m = periodMap(maps, lastSymIdx);
    if (typeof period === 'number' && isInt(period) && period >= 1 && period < FAST_PERIODS) {
      var found = m[period];
      if (found > 0) return found - 1;
      var id = register(slowMaps, KIND_NAMES[kind] + lastSymIdx + '/' + period, kind, lastSymIdx, period, 0);
      m[period] = id + 1;
      return id;
    }
    var key = KIND_NAMES[kind] + lastSymIdx + '/' + period, known = slowMaps[key];
    return known !== undefined ? known : register(slowMaps, key, kind, lastSymIdx, period, 0);
  }
  var slowMaps = create(null);
  var indicators = freeze({
    sma: function sma(symbol, period) {
      if (symbol !== lastSymName) symIdx(symbol);
      var id = curSma !== null ? curSma[period] - 1 : -1;
      if (!(id >= 0)) id = slowId(smaM, 0, period);
      return IND[id * stride + readIdx];
    },
    ema: function ema(symbol, period) {
      if (symbol !== lastSymName) symIdx(symbol);
      var id = curEma !== null ? curEma[period] - 1 : -1;
      if (!(id >= 0)) id = slowId(emaM, 1, period);
      return IND[id * stride + readIdx];
    },
    rsi: function rsi(symbol, period) {
      if (period === undefined) period = 14;
      if (symbol !== lastSymName) symIdx(symbol);
      var id = curRsi !== null ? curRsi[period] - 1 : -1;
      if (!(id >= 0)) id = slowId(rsiM, 2, period);
      return IND[id * stride + readIdx];
    },
    atr: function atr(symbol, period) {
      if (period === undefined) period = 14;
      if (symbol !== lastSymName) symIdx(symbol);
      var id = curAtr !== null ? curAtr[period] - 1 : -1;
      if (!(id >= 0)) id = slowId(atrM, 3, period);
      return IND[id * stride + readIdx];
    },
    bollinger: function bollinger(symbol, period, multiplier) {
      if (period === undefined) period = 20;
      if (multiplier === undefined) multiplier = 2;
      var m = bbM[symIdx(symbol)], key = period + '/' + multiplier, id = m[key];
      if (id === undefined) id = register(m, key, 4, lastSymIdx, period, multiplier);
      var c = bbCache[id];
      if (c !== undefined && c.b === batchNo && c.i === readIdx) return c.v;
      var at = id * stride + readIdx;
      var v = freeze({ upper: IND[at], middle: IND[at + stride], lower: IND[at + 2 * stride] });
      bbCache[id] = { b: batchNo, i: readIdx, v: v };
      return v;
    }
  });

  /* ---- ctx ---- */
  function makeView(s) {
    var q = qty[s], e = entry[s];
    return freeze({
      symbol: symNames[s], side: q > 0 ? 'long' : 'short', quantity: mathAbs(q), entryPrice: e, entryTime: entryTime[s],
      margin: margin[s], stopLoss: sl[s] === sl[s] ? sl[s] : null, takeProfit: tp[s] === tp[s] ? tp[s] : null,
      liquidationPrice: liq[s] === liq[s] ? liq[s] : null,
      get unrealizedPnl() { return q * (lastPrice[s] - e); }
    });
  }
  function optionalPrice(v, what) {
    if (v === undefined || v === null) return NaN;
    if (!posNum(v)) throw new TypeErr(what + ' must be a positive price, got ' + fmt(v));
    return v;
  }
  function place(side, symbol, opts) {
    var s = symIdx(symbol);
    if (opts === undefined || opts === null) opts = {};
    else if (typeof opts !== 'object') throw new TypeErr('order options must be an object');
    var type = opts.type, price = opts.price, quantity = opts.quantity, size = opts.size, reduceOnly = opts.reduceOnly, tag = opts.tag;
    var tc = type === undefined || type === 'market' ? MARKET : type === 'limit' ? LIMIT : type === 'stop' ? STOP : -1;
    if (tc < 0) throw new TypeErr('order type must be "market", "limit" or "stop", got ' + fmt(type));
    if (tc !== MARKET && !posNum(price)) throw new TypeErr(type + ' orders need a positive price, got ' + fmt(price));
    if (tc === MARKET && price !== undefined) throw new TypeErr('market orders take no price: they fill at the next open');
    if ((quantity === undefined) === (size === undefined)) throw new TypeErr('give either quantity (units) or size (fraction of equity), not both or neither');
    if (quantity !== undefined && !posNum(quantity)) throw new TypeErr('quantity must be a positive number, got ' + fmt(quantity));
    if (size !== undefined && !(typeof size === 'number' && size > 0 && size <= 1)) throw new TypeErr('size is a fraction of equity in (0, 1], got ' + fmt(size));
    if (reduceOnly !== undefined && typeof reduceOnly !== 'boolean') throw new TypeErr('reduceOnly must be a boolean');
    if (tag !== undefined && !(typeof tag === 'string' && tag.length <= 100)) throw new TypeErr('tag must be a string of at most 100 characters');
    if (pendingTotal >= 10000) throw new RangeErr('Too many open orders (10,000)');
    var slp = optionalPrice(opts.stopLoss, 'stopLoss'), tpp = optionalPrice(opts.takeProfit, 'takeProfit');
    return addOrder(s, side, tc, tc === MARKET ? NaN : price, quantity === undefined ? NaN : quantity, size === undefined ? NaN : size,
      slp, tpp, reduceOnly === true, false, tag === undefined ? null : tag);
  }
  /* Orders are internal records, recycled once filled or cancelled (the strategy only ever sees snapshots and events). */
  function addOrder(s, side, type, price, q, size, slp, tpp, reduceOnly, closeAll, tag) {
    var o = freeOrders.length !== 0 ? freeOrders.pop()
      : { id: '', s: 0, side: 0, type: 0, price: NaN, qty: NaN, size: NaN, sl: NaN, tp: NaN, reduceOnly: false, closeAll: false, tag: null, time: 0 };
    o.id = 'o' + (++orderSeq); o.s = s; o.side = side; o.type = type; o.price = price; o.qty = q; o.size = size;
    o.sl = slp; o.tp = tpp; o.reduceOnly = reduceOnly; o.closeAll = closeAll; o.tag = tag; o.time = now;
    pending[s].push(o); pendingTotal++; pendingCount[s]++;
    return o.id;
  }
  /* Removes list[j] (pending orders of symbol s), keeping the others in time order. */
  function takeOrder(list, j, s) {
    var o = list[j], last = list.length - 1;
    for (var k = j; k < last; k++) list[k] = list[k + 1];
    list.pop();
    pendingTotal--; pendingCount[s]--;
    return o;
  }
  function removeOrder(id) {
    for (var s = 0; s < nSym; s++) {
      var list = pending[s];
      for (var j = 0; j < list.length; j++) if (list[j].id === id) return takeOrder(list, j, s);
    }
    return null;
  }
  function snapshot(o) {
    return freeze({ id: o.id, symbol: symNames[o.s], side: o.closeAll ? (qty[o.s] > 0 ? 'sell' : 'buy') : o.side > 0 ? 'buy' : 'sell',
      type: REASONS[o.type], price: o.price === o.price ? o.price : null, quantity: o.closeAll ? mathAbs(qty[o.s]) : o.qty === o.qty ? o.qty : null,
      size: o.size === o.size ? o.size : null, stopLoss: o.sl === o.sl ? o.sl : null, takeProfit: o.tp === o.tp ? o.tp : null,
      reduceOnly: o.reduceOnly, tag: o.tag, time: o.time });
  }
  var ctx = freeze({
    mode: 'backtest',
    params: deepFreeze(cfg.params),
    symbols: freeze(symNames.slice()),
    indicators: indicators,
    now: function () { return now; },
    equity: equityNow,
    cash: function () { return cash; },
    position: function (symbol) {
      var s = symbol === lastSymName ? lastSymIdx : symIdx(symbol);
      if (qty[s] === 0) return null;
      var v = views[s];
      if (v === null) v = views[s] = makeView(s);
      return v;
    },
    orders: function (symbol) {
      var out = [];
      for (var s = 0; s < nSym; s++) {
        if (symbol !== undefined && s !== symIdx(symbol)) continue;
        for (var j = 0; j < pending[s].length; j++) out.push(snapshot(pending[s][j]));
      }
      return freeze(out);
    },
    buy: function (symbol, opts) { return place(1, symbol, opts); },
    sell: function (symbol, opts) { return place(-1, symbol, opts); },
    close: function (symbol) {
      var s = symIdx(symbol), list = pending[s];
      for (var j = 0; j < list.length; j++) if (list[j].closeAll) return list[j].id;
      if (qty[s] === 0) return null;
      return addOrder(s, qty[s] > 0 ? -1 : 1, MARKET, NaN, NaN, NaN, NaN, NaN, true, true, null);
    },
    cancel: function (id) {
      var o = typeof id === 'string' ? removeOrder(id) : null;
      if (o === null) return false;
      orderEvent(o, 'cancelled', 0, NaN, 0, 'cancelled by the strategy');
      freeOrders.push(o);
      return true;
    },
    cancelAll: function (symbol) {
      var n = 0;
      for (var s = 0; s < nSym; s++) {
        if (symbol !== undefined && s !== symIdx(symbol)) continue;
        var list = pending[s];
        while (list.length) { var o = list.pop(); pendingTotal--; pendingCount[s]--; n++; orderEvent(o, 'cancelled', 0, NaN, 0, 'cancelled by the strategy'); freeOrders.push(o); }
      }
      return n;
    },
    setStopLoss: function (symbol, price) {
      var s = symIdx(symbol);
      var p = optionalPrice(price, 'stopLoss');
      if (qty[s] === 0) return false;
      sl[s] = p; slTime[s] = now; views[s] = null; updateExitLevels(s);
      return true;
    },
    setTakeProfit: function (symbol, price) {
      var s = symIdx(symbol);
      var p = optionalPrice(price, 'takeProfit');
      if (qty[s] === 0) return false;
      tp[s] = p; tpTime[s] = now; views[s] = null; updateExitLevels(s);
      return true;
    },
    log: log,
    random: random
  });

  /* ---- the candle loop: one call per batch ---- */
  function runBatch(buf, n) {
    try {
      var Tm = new F64(buf, 0, n), Op = new F64(buf, n * 8, n), Hi = new F64(buf, n * 16, n), Lo = new F64(buf, n * 24, n);
      var Cl = new F64(buf, n * 32, n), Vo = new F64(buf, n * 40, n);
      batchNo++;
      stride = n + 1;
      IND = new F64(buf, n * 6 * 8, indCount * stride);
      var Sy = new Int32Array(buf, (n * 6 + indCount * stride) * 8, n);
      for (var i = 0; i < n; i++) {
        var t = Tm[i], s = Sy[i], call = s >= 0;
        if (!call) s = -1 - s;
        now = t;
        var q = qty[s];
        if (pendingCount[s] !== 0 || (q !== 0 && (Lo[i] <= exBelow[s] || Hi[i] >= exAbove[s]))) {
          readIdx = i;
          processBar(s, t, Op[i], Hi[i], Lo[i]);
          if (changed) { recordState(i, s); changed = false; }
          if (events.length !== 0) flushEvents();
          q = qty[s];
        }
        if (q !== 0) lastPrice[s] = Cl[i];
        if (call) {
          var cd = candles[s];
          cd.time = t; cd.open = Op[i]; cd.high = Hi[i]; cd.low = Lo[i]; cd.close = Cl[i]; cd.volume = Vo[i];
          readIdx = i + 1;
          onCandle(ctx, cd);
          if (logLimitHit || events.length !== 0) { if (logLimitHit) throw new Err('Log limit reached'); flushEvents(); }
        }
      }
      return (trCount > 0 ? 1 : 0) | (logs.length > 0 ? 2 : 0) | (stCount > 0 ? 4 : 0);
    } catch (e) {
      describe(e);
      return -1;
    }
  }
  function drainStates() { var out = ST.slice(0, stCount * STATE_FIELDS); stCount = 0; return out.buffer; }
  function drainTrades() { var out = TR.slice(0, trCount * TRADE_FIELDS); trCount = 0; return out.buffer; }
  /* Closes what is still open at each symbol's last close (taker fee), drops pending orders. */
  function finish() {
    try {
      for (var s = 0; s < nSym; s++) {
        if (qty[s] !== 0) { now = lastTime[s]; lastPrice[s] = lastClose[s]; closeAt(s, lastClose[s], taker, lastTime[s], R_END); }
        pendingTotal -= pending[s].length;
        pending[s].length = 0;
        pendingCount[s] = 0;
      }
      events.length = 0;
      var out = new F64(1 + nSym);
      out[0] = cash;
      for (s = 0; s < nSym; s++) out[1 + s] = initial + realized[s];
      return out.buffer;
    } catch (e) {
      describe(e);
      return null;
    }
  }
  run = { runBatch: runBatch, drainStates: drainStates, drainTrades: drainTrades, finish: finish };
  return true;
}

function drainLogs() {
  if (logs.length === 0) return '[]';
  var s = jsonStringify(logs);
  logs.length = 0;
  return s;
}

return freeze({
  readMeta: readMeta,
  readExports: readExports,
  start: start,
  runBatch: function (buf, n) { return run.runBatch(buf, n); },
  drainStates: function () { return run.drainStates(); },
  drainTrades: function () { return run.drainTrades(); },
  drainLogs: drainLogs,
  finish: function () { return run.finish(); },
  lastError: lastError,
  describe: function (e) { describe(e); return lastError(); }
});
})`;

/** Numbers per trade in the guest's trade buffer. */
export const TRADE_FIELDS = 10;

/** Numbers per account change in the guest's state buffer: batch index, symbol, quantity, entry, cash, realized. */
export const STATE_FIELDS = 6;

/** Exit reasons, by the code the guest writes into a trade. */
export const EXIT_REASONS = ['market', 'limit', 'stop', 'stopLoss', 'takeProfit', 'liquidation', 'end'] as const;

/** Indicator kinds, by the code the guest passes to the host. */
export const GUEST_INDICATOR_KINDS = ['sma', 'ema', 'rsi', 'atr', 'bollinger'] as const;

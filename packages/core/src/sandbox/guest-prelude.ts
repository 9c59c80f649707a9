/*
 * Pieces of trusted guest source shared by the backtest runtime (guest-runtime.ts) and the live
 * runtime (guest-live-runtime.ts), pasted into each at its place. Plain ES5-style JavaScript,
 * never run in the host's V8. They use the names the runtimes declare first: `G` (globalThis),
 * `boot` (seed), `now` (the candle's time), `Str`, `jsonStringify`, `keys`, `freeze`, `RangeErr`,
 * and, for `describe`, `logLimitHit`, `maxLogLines`, `maxLogBytes` and `logLimitScope` (what the
 * log limit applies to: '' for a backtest run, ' in one call' live).
 */

/** `Math.random` and `ctx.random` as a seeded sfc32; `Date` answers the candle's time, never the host's. */
export const GUEST_DETERMINISM_SOURCE = String.raw`/* ---- deterministic randomness: sfc32 seeded by the run ---- */
var ra = boot.seed >>> 0, rb = 0x9e3779b9, rc = 0x243f6a88, rd = 1;
function random() {
  var t = (ra + rb | 0) + rd | 0;
  rd = rd + 1 | 0;
  ra = rb ^ rb >>> 9;
  rb = rc + (rc << 3) | 0;
  rc = rc << 21 | rc >>> 11;
  rc = rc + t | 0;
  return (t >>> 0) / 4294967296;
}
for (var warm = 0; warm < 12; warm++) random();
Math.random = random;

/* ---- the clock is the candle's time, never the host's ---- */
var RealDate = Date;
function SandboxDate(a, b, c, d, e, f, g) {
  var n = arguments.length;
  if (!new.target) return new RealDate(now).toString();
  if (n === 0) return new RealDate(now);
  if (n === 1) return new RealDate(a);
  return new RealDate(a, b, c === undefined ? 1 : c, d || 0, e || 0, f || 0, g || 0);
}
SandboxDate.prototype = RealDate.prototype;
SandboxDate.now = function () { return now; };
SandboxDate.parse = RealDate.parse;
SandboxDate.UTC = RealDate.UTC;
Object.defineProperty(RealDate.prototype, 'constructor', { value: SandboxDate, writable: true, configurable: true });
G.Date = SandboxDate;
`;

/** `fmt` (a value as log text). */
export const GUEST_FORMAT_SOURCE = String.raw`function fmt(v) {
  var t = typeof v;
  if (t === 'string') return v;
  if (v === null || t === 'number' || t === 'boolean' || t === 'undefined' || t === 'bigint' || t === 'symbol') return Str(v);
  if (t === 'function') return '[function]';
  try { var j = jsonStringify(v); if (typeof j === 'string') return j; } catch (x) {}
  try { return Str(v); } catch (x) { return '[object]'; }
}
`;

/** `describe(e)` (anything thrown, as kind, message and a stack of strategy.js frames), `lastError()`, `readMeta(ns)`, `deepFreeze(v)`. */
export const GUEST_ERRORS_SOURCE = String.raw`/* ---- errors: described inside the guest, so the host only ever reads strings ---- */
var errKind = '', errMessage = '', errStack = '';
function describe(e) {
  if (logLimitHit) {
    errKind = 'LOG_LIMIT';
    errMessage = 'The strategy wrote more than ' + maxLogLines + ' log lines or ' + maxLogBytes + ' characters of log' + logLimitScope;
    return;
  }
  errKind = 'STRATEGY_ERROR';
  errStack = '';
  try {
    if (e !== null && (typeof e === 'object' || typeof e === 'function')) {
      var name = '', msg = '';
      try { name = Str(e.name); } catch (x) {}
      try { msg = Str(e.message); } catch (x) {}
      try {
        if (typeof e.stack === 'string') {
          var lines = e.stack.split('\n'), kept = [];
          for (var li = 0; li < lines.length && kept.length < 12; li++) if (lines[li].indexOf('strategy.js') >= 0) kept.push(lines[li]);
          errStack = kept.join('\n');
          if (errStack.length > 4000) errStack = errStack.slice(0, 4000) + '...';
        }
      } catch (x) {}
      if (name === 'InternalError' && (msg === 'out of memory' || msg === 'string too long')) errKind = 'MEMORY_LIMIT';
      else if ((name === 'InternalError' && msg === 'stack overflow') || (name === 'RangeError' && msg === 'Maximum call stack size exceeded')) errKind = 'STACK_OVERFLOW';
      errMessage = (name && name !== 'undefined' ? name + ': ' : '') + msg;
    } else if (typeof e === 'string') {
      errMessage = 'Strategy threw a string: ' + jsonStringify(e.length > 500 ? e.slice(0, 500) + '...' : e);
    } else {
      errMessage = 'Strategy threw a non-Error value: ' + Str(e);
    }
  } catch (x) {
    errMessage = 'Strategy threw a value that could not be described';
  }
  if (errMessage.length > 2000) errMessage = errMessage.slice(0, 2000) + '...';
}
function lastError() { return jsonStringify([errKind, errMessage, errStack]); }

function readMeta(ns) {
  var m = ns.meta;
  if (m === undefined || m === null) return 'null';
  var s = jsonStringify(m);
  if (typeof s !== 'string') return 'null';
  if (s.length > 200000) throw new RangeErr('meta is larger than 200,000 characters');
  return s;
}

function deepFreeze(v) {
  if (v !== null && typeof v === 'object') { var k = keys(v); for (var i = 0; i < k.length; i++) deepFreeze(v[k[i]]); freeze(v); }
  return v;
}
`;

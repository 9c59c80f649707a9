import type { ExchangeOrder } from '../ports/exchange-gateway.js';
import type { StreamState } from './reconciler.js';

/*
 * A deployment's private order stream (docs/live-deployments.md, "Order streams"): a loop that
 * keeps one `watchOrders` call of the gateway outstanding and buffers the updates it brings, for
 * the runner to apply under the deployment's lock at its next cycle, through the same path as a
 * REST answer (order-sync.ts `applySeen`: the whole state of the order, compare-and-set, so an
 * update seen on both paths counts once).
 *
 * State: `connected` once a watch call has stayed open for `settleMs` without failing or brought
 * updates; `polling` after a failure (the connection was refused or dropped) until it is connected
 * again, retried with a doubling delay. A connected stream that goes quiet is a gap too: while the
 * deployment has open orders, a stream that has delivered nothing for `quietMs` of the
 * deployment's clock (since its last update, its connection, or the newest open order's creation,
 * whichever is latest) is `polling` until it delivers again (`checkQuiet`, at each poll): a stream
 * that stays connected but stopped telling (a lost subscription, an exchange that dropped events)
 * costs at most `quietMs` and a poll. While it is `polling`, the runner polls every open order over
 * REST at every cycle; once it comes back (connected again, or delivering again), one
 * reconciliation run follows (`takeReconnected`).
 */

export interface OrderStream {
  readonly state: Exclude<StreamState, 'none'>;
  /** Why it is `polling`: it failed (`down`) or went quiet (`quiet`); null while connected. */
  readonly gapReason: 'down' | 'quiet' | null;
  /**
   * Called at each poll, before `state` is read: `openSinceMs` is the creation time (ms of the
   * deployment's clock) of the deployment's newest open order, null when it has none. A connected
   * stream silent for `quietMs` since then (and since its last update) goes `polling` (quiet)
   * until it delivers again. Returns the state.
   */
  checkQuiet(openSinceMs: number | null): OrderStream['state'];
  /** The updates received since the last call, one per order (the furthest filled; a final status wins). */
  take(): ExchangeOrder[];
  /** Updates waiting for `take`. */
  buffered(): number;
  /** True once after the stream connected again following a gap: reconcile now. */
  takeReconnected(): boolean;
  /** Stops the loop (a watch call in flight is left to end; its answer is ignored). */
  close(): void;
}

export interface OrderStreamOptions {
  watch(): Promise<ExchangeOrder[]>;
  /** Called on each change of state, with why it is `polling`. */
  onState?(state: OrderStream['state'], gapReason: OrderStream['gapReason']): void;
  /** The deployment's clock, in ms (default `Date.now`): quiet periods are measured on it. */
  now?(): number;
  /** How long a connected stream may deliver nothing while orders are open before it counts as a gap. Default 60 000 ms. */
  quietMs?: number;
  /** How long a watch call must stay open without failing to count as connected. Default 1000 ms. */
  settleMs?: number;
  /** First and largest delay between attempts after failures. Default 500 ms and 30 s. */
  retryBaseMs?: number;
  retryMaxMs?: number;
}

/** Default quiet period of a connected stream with open orders before REST polls every open order (`quietMs`). */
export const DEFAULT_STREAM_QUIET_MS = 60_000;

const FINAL = new Set(['filled', 'cancelled', 'rejected']);

/** Which of two updates of one order says more: a final status, else the larger filled quantity, else the later. */
function newer(a: ExchangeOrder, b: ExchangeOrder): ExchangeOrder {
  if (FINAL.has(a.status) !== FINAL.has(b.status)) return FINAL.has(a.status) ? a : b;
  return b.filledQuantity >= a.filledQuantity ? b : a;
}

export function startOrderStream(options: OrderStreamOptions): OrderStream {
  const settleMs = options.settleMs ?? 1000;
  const baseMs = options.retryBaseMs ?? 500;
  const maxMs = options.retryMaxMs ?? 30_000;
  const quietMs = options.quietMs ?? DEFAULT_STREAM_QUIET_MS;
  const now = options.now ?? Date.now;
  const updates = new Map<string, ExchangeOrder>();
  let state: OrderStream['state'] = 'polling';
  let gapReason: OrderStream['gapReason'] = 'down';
  /** When the stream last connected or delivered, on the deployment's clock. */
  let heardAt = now();
  let gap = false;
  let reconnected = false;
  let failures = 0;
  let closed = false;
  let timer: NodeJS.Timeout | undefined;

  const setState = (next: OrderStream['state'], reason: OrderStream['gapReason'] = next === 'polling' ? 'down' : null) => {
    if (next === 'connected') heardAt = now();
    if (next === state && reason === gapReason) return;
    if (next === 'connected' && gap) reconnected = true;
    if (next === 'polling') gap = true;
    state = next;
    gapReason = reason;
    options.onState?.(next, reason);
  };

  const later = (fn: () => void, ms: number) => {
    timer = setTimeout(fn, ms);
    timer.unref?.();
  };

  function attempt() {
    if (closed) return;
    let settled = false;
    const settle = setTimeout(() => {
      // A quiet stream stays quiet until it delivers: a watch call that stays open proves nothing then.
      if (!settled && !closed && gapReason !== 'quiet') setState('connected');
    }, settleMs);
    settle.unref?.();
    options.watch().then(
      (orders) => {
        settled = true;
        clearTimeout(settle);
        if (closed) return;
        failures = 0;
        for (const o of orders) {
          const key = o.exchangeOrderId || o.clientOrderId || '';
          const before = updates.get(key);
          updates.set(key, before ? newer(before, o) : o);
        }
        setState('connected');
        attempt();
      },
      () => {
        settled = true;
        clearTimeout(settle);
        if (closed) return;
        setState('polling');
        failures++;
        later(attempt, Math.min(maxMs, baseMs * 2 ** Math.min(failures - 1, 16)));
      },
    );
  }
  attempt();

  return {
    get state() {
      return state;
    },
    get gapReason() {
      return gapReason;
    },
    checkQuiet(openSinceMs) {
      if (state === 'connected' && openSinceMs !== null && now() - Math.max(heardAt, openSinceMs) >= quietMs) setState('polling', 'quiet');
      return state;
    },
    take() {
      const out = [...updates.values()];
      updates.clear();
      return out;
    },
    buffered: () => updates.size,
    takeReconnected() {
      const was = reconnected;
      reconnected = false;
      if (was) gap = false;
      return was;
    },
    close() {
      closed = true;
      clearTimeout(timer);
    },
  };
}

import type { ExchangeOrder } from '../ports/exchange-gateway.js';
import type { StreamState } from './reconciler.js';

/*
 * A deployment's private order stream (docs/live-deployments.md, "Order streams"): a loop that
 * keeps one `watchOrders` call of the gateway outstanding and buffers the updates it brings, for
 * the runner to apply under the deployment's lock at its next cycle, through the same path as a
 * REST answer (order-sync.ts `applySeen`: the whole state of the order, compare-and-set, so an
 * update seen on both paths counts once).
 *
 * State: `connected` once a watch call has stayed open for `settleMs` without failing (a quiet
 * stream is a healthy one: orders that do not change send nothing) or brought updates;
 * `polling` after a failure (the connection was refused or dropped) until it is connected again,
 * retried with a doubling delay. While it is `polling`, the runner polls every open order over
 * REST at every cycle; once it comes back, one reconciliation run follows (`takeReconnected`).
 */

export interface OrderStream {
  readonly state: Exclude<StreamState, 'none'>;
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
  /** Called on each change of state. */
  onState?(state: OrderStream['state']): void;
  /** How long a watch call must stay open without failing to count as connected. Default 1000 ms. */
  settleMs?: number;
  /** First and largest delay between attempts after failures. Default 500 ms and 30 s. */
  retryBaseMs?: number;
  retryMaxMs?: number;
}

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
  const updates = new Map<string, ExchangeOrder>();
  let state: OrderStream['state'] = 'polling';
  let gap = false;
  let reconnected = false;
  let failures = 0;
  let closed = false;
  let timer: NodeJS.Timeout | undefined;

  const setState = (next: OrderStream['state']) => {
    if (next === state) return;
    if (next === 'connected' && gap) reconnected = true;
    if (next === 'polling') gap = true;
    state = next;
    options.onState?.(next);
  };

  const later = (fn: () => void, ms: number) => {
    timer = setTimeout(fn, ms);
    timer.unref?.();
  };

  function attempt() {
    if (closed) return;
    let settled = false;
    const settle = setTimeout(() => {
      if (!settled && !closed) setState('connected');
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

import type { BacktestAccount } from './backtest-account.js';
import type { createBacktestLoop } from './backtest-loop.js';
import type { createBacktestOrders } from './backtest-orders.js';
import { deepFreeze } from './errors.js';
import { freeze } from './intrinsics.js';
import { optionalPrice, optionalTrail } from './order-args.js';

/** The `ctx` a backtest's strategy gets (docs/strategy-api.md): reads of the simulated account, orders, indicators. */
export function createBacktestCtx(parts: {
  symbols: string[];
  params: unknown;
  book: BacktestAccount;
  orders: ReturnType<typeof createBacktestOrders>;
  loop: Pick<ReturnType<typeof createBacktestLoop>, 'indicators' | 'history' | 'symIdx'>;
  log: (...args: unknown[]) => void;
  random: () => number;
  now: () => number;
}) {
  const { book, orders, loop } = parts;
  const symIdx = loop.symIdx;
  return freeze({
    mode: 'backtest',
    params: deepFreeze(parts.params),
    symbols: freeze(parts.symbols.slice()),
    indicators: loop.indicators,
    history: loop.history,
    now: parts.now,
    equity: book.equity,
    cash: () => book.account.cash,
    position: book.position,
    orders: (symbol?: string) => orders.list(symbol === undefined ? -1 : symIdx(symbol)),
    buy: (symbol: string, opts?: unknown) => {
      const s = symIdx(symbol);
      return orders.place(s, 1, opts);
    },
    sell: (symbol: string, opts?: unknown) => {
      const s = symIdx(symbol);
      return orders.place(s, -1, opts);
    },
    close: (symbol: string) => orders.close(symIdx(symbol)),
    cancel: (id: unknown) => orders.cancel(id),
    cancelAll: (symbol?: string) => orders.cancelAll(symbol === undefined ? -1 : symIdx(symbol)),
    setStopLoss: (symbol: string, price: unknown) => {
      const s = symIdx(symbol);
      return book.setLevel('sl', s, optionalPrice(price, 'stopLoss'));
    },
    setTakeProfit: (symbol: string, price: unknown) => {
      const s = symIdx(symbol);
      return book.setLevel('tp', s, optionalPrice(price, 'takeProfit'));
    },
    setTrailingStop: (symbol: string, spec: unknown) => {
      const s = symIdx(symbol);
      return book.setTrailingStop(s, optionalTrail(spec));
    },
    log: parts.log,
    random: parts.random,
  });
}

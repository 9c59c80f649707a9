/**
 * An independent model of the reference SMA-crossover strategy under the fill model of
 * docs/backtest-model.md: market orders fill at the next candle of their symbol at its open,
 * moved against the trader by `slippage`, with the taker fee; one shared account; open
 * positions close at each symbol's last close at the end (taker fee, no slippage). Written
 * from the document, not from the engine, so the two can disagree.
 */
export interface RefCandle {
  time: number;
  open: number;
  high: number;
  low: number;
  close: number;
}

export interface RefTrade {
  symbol: string;
  side: 'long';
  entryTime: number;
  entryPrice: number;
  exitTime: number;
  exitPrice: number;
  quantity: number;
  pnl: number;
  fees: number;
}

export interface RefConfig {
  fast: number;
  slow: number;
  /** Units bought per entry, per symbol. */
  quantity: Record<string, number>;
  taker: number;
  slippage: number;
  initialCapital: number;
}

function sma(closes: number[], period: number): number {
  if (closes.length < period) return Number.NaN;
  let sum = 0;
  for (let i = closes.length - period; i < closes.length; i++) sum += closes[i]!;
  return sum / period;
}

export function simulateSmaCrossover(candles: Record<string, RefCandle[]>, symbols: string[], cfg: RefConfig) {
  const events = symbols
    .flatMap((symbol, order) => candles[symbol]!.map((c) => ({ symbol, order, c })))
    .sort((a, b) => a.c.time - b.c.time || a.order - b.order);
  let cash = cfg.initialCapital;
  let feesPaid = 0;
  const closes: Record<string, number[]> = Object.fromEntries(symbols.map((s) => [s, []]));
  const lastClose: Record<string, number> = {};
  const position: Record<string, { qty: number; entry: number; entryTime: number; entryFee: number } | undefined> = {};
  const pending: Record<string, 'open' | 'close' | undefined> = {};
  const trades: RefTrade[] = [];
  const curve: Array<{ time: number; equity: number }> = [];
  const equityNow = () => cash + symbols.reduce((u, s) => u + (position[s] ? position[s]!.qty * (lastClose[s]! - position[s]!.entry) : 0), 0);

  for (let k = 0; k < events.length; k++) {
    const { symbol, c } = events[k]!;
    const order = pending[symbol];
    pending[symbol] = undefined;
    if (order === 'open') {
      const price = c.open * (1 + cfg.slippage);
      const qty = cfg.quantity[symbol]!;
      const fee = qty * price * cfg.taker;
      cash -= fee;
      feesPaid += fee;
      position[symbol] = { qty, entry: price, entryTime: c.time, entryFee: fee };
    } else if (order === 'close') {
      const p = position[symbol]!;
      const price = c.open * (1 - cfg.slippage);
      const fee = p.qty * price * cfg.taker;
      const gross = (price - p.entry) * p.qty;
      cash += gross - fee;
      feesPaid += fee;
      trades.push({
        symbol,
        side: 'long',
        entryTime: p.entryTime,
        entryPrice: p.entry,
        exitTime: c.time,
        exitPrice: price,
        quantity: p.qty,
        pnl: gross - p.entryFee - fee,
        fees: p.entryFee + fee,
      });
      position[symbol] = undefined;
    }
    closes[symbol]!.push(c.close);
    lastClose[symbol] = c.close;
    const next = events[k + 1];
    if (!next || next.c.time !== c.time) curve.push({ time: c.time, equity: equityNow() });
    const f = sma(closes[symbol]!, cfg.fast);
    const s = sma(closes[symbol]!, cfg.slow);
    if (f > s && !position[symbol]) pending[symbol] = 'open';
    else if (f < s && position[symbol]) pending[symbol] = 'close';
  }
  for (const symbol of symbols) {
    const p = position[symbol];
    if (!p) continue;
    const list = candles[symbol]!;
    const last = list[list.length - 1]!;
    const fee = p.qty * last.close * cfg.taker;
    const gross = (last.close - p.entry) * p.qty;
    cash += gross - fee;
    feesPaid += fee;
    trades.push({
      symbol,
      side: 'long',
      entryTime: p.entryTime,
      entryPrice: p.entry,
      exitTime: last.time,
      exitPrice: last.close,
      quantity: p.qty,
      pnl: gross - p.entryFee - fee,
      fees: p.entryFee + fee,
    });
    position[symbol] = undefined;
  }
  curve[curve.length - 1]!.equity = cash;
  let peak = cfg.initialCapital;
  let maxDrawdown = 0;
  for (const point of curve) {
    peak = Math.max(peak, point.equity);
    maxDrawdown = Math.max(maxDrawdown, (peak - point.equity) / peak);
  }
  const wins = trades.filter((t) => t.pnl > 0).length;
  return {
    trades,
    curve,
    finalEquity: cash,
    metrics: {
      totalReturn: cash / cfg.initialCapital - 1,
      tradeCount: trades.length,
      feesPaid,
      winRate: trades.length ? wins / trades.length : null,
      maxDrawdown,
      expectancy: trades.length ? trades.reduce((a, t) => a + t.pnl, 0) / trades.length : null,
    },
  };
}

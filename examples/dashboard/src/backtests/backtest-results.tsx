import type { BacktestDetail } from '@stratbox/client';
import { useMemo, useState } from 'react';
import { ErrorBanner } from '../ui/error-banner.js';
import { BacktestLogs } from './backtest-logs.js';
import { CandleChart } from './candle-chart.js';
import { EquityChart } from './equity-chart.js';
import { MetricCards } from '../ui/metric-cards.js';
import { SymbolTabs } from './symbol-tabs.js';
import { TradesTable } from './trades-table.js';
import { useAllTrades } from './use-all-trades.js';

/** A completed run: metrics, equity and drawdown, each symbol's candles with its trades, the trades and the log. */
export function BacktestResults({ backtest }: { backtest: BacktestDetail }) {
  const [symbol, setSymbol] = useState(backtest.symbols[0]!);
  const all = useAllTrades(backtest);
  const symbolTrades = useMemo(() => all.trades.filter((t) => t.symbol === symbol), [all.trades, symbol]);

  return (
    <>
      <section aria-labelledby="metrics-title">
        <h2 id="metrics-title">Metrics</h2>
        {backtest.metrics ? <MetricCards metrics={backtest.metrics} /> : <p className="muted">This run has no metrics.</p>}
        {backtest.tradesTruncated ? (
          <p className="muted">
            The run made {backtest.tradeCount?.toLocaleString('en')} trades; the service stored the first {backtest.storedTradeCount?.toLocaleString('en')} (the
            metrics cover them all).
          </p>
        ) : null}
      </section>
      <section aria-labelledby="equity-title">
        <h2 id="equity-title">Equity and drawdown</h2>
        <EquityChart points={backtest.equityCurve ?? []} />
      </section>
      <section aria-labelledby="candles-title">
        <h2 id="candles-title">Candles and trades</h2>
        <ErrorBanner error={all.error} title="Could not load every trade" />
        <SymbolTabs symbols={backtest.symbols} selected={symbol} onSelect={setSymbol}>
          {all.loading ? <p className="muted">Loading trades… {all.trades.length.toLocaleString('en')} so far</p> : null}
          {/* mounted at once: the candles load while the trades do */}
          <CandleChart key={symbol} backtest={backtest} symbol={symbol} trades={all.loading ? null : symbolTrades} />
        </SymbolTabs>
      </section>
      <section aria-labelledby="trades-title">
        <h2 id="trades-title">Trades</h2>
        <TradesTable trades={all.trades} loading={all.loading} />
      </section>
      <section aria-labelledby="logs-title">
        <h2 id="logs-title">Log</h2>
        <BacktestLogs backtestId={backtest.id} />
      </section>
    </>
  );
}

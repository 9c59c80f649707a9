import type { BacktestDetail } from '@stratbox/client';
import { formatDuration, formatMoney, formatNumber, formatPercent } from './format.js';

type Metrics = NonNullable<BacktestDetail['metrics']>;
/** The run-wide figures, without the per-symbol breakdown (an optimization trial's metrics are these). */
type MetricValues = Omit<Metrics, 'perSymbol'>;

/** The run-wide metrics the dashboard shows, in order, each with how it is written (the cards here, the compare page's rows). */
export const METRIC_CARDS: Array<{ label: string; value(m: MetricValues): string; tone?(m: MetricValues): 'gain' | 'loss' | undefined }> = [
  { label: 'Total return', value: (m) => formatPercent(m.totalReturn), tone: (m) => tone(m.totalReturn) },
  { label: 'CAGR', value: (m) => formatPercent(m.cagr), tone: (m) => tone(m.cagr) },
  { label: 'Max drawdown', value: (m) => formatPercent(m.maxDrawdown) },
  { label: 'Longest drawdown', value: (m) => formatDuration(m.maxDrawdownDuration) },
  { label: 'Sharpe', value: (m) => formatNumber(m.sharpe) },
  { label: 'Sortino', value: (m) => formatNumber(m.sortino) },
  { label: 'Calmar', value: (m) => formatNumber(m.calmar) },
  { label: 'Win rate', value: (m) => formatPercent(m.winRate) },
  { label: 'Profit factor', value: (m) => formatNumber(m.profitFactor) },
  { label: 'Expectancy', value: (m) => formatMoney(m.expectancy), tone: (m) => tone(m.expectancy) },
  { label: 'Trades', value: (m) => m.tradeCount.toLocaleString('en') },
  { label: 'Exposure', value: (m) => formatPercent(m.exposure) },
  { label: 'Fees paid', value: (m) => formatMoney(m.feesPaid) },
  { label: 'Funding paid', value: (m) => formatMoney(m.fundingPaid) },
  { label: 'Buy and hold', value: (m) => formatPercent(m.buyAndHoldReturn), tone: (m) => tone(m.buyAndHoldReturn) },
];

function tone(value: number | null): 'gain' | 'loss' | undefined {
  return value === null ? undefined : value > 0 ? 'gain' : value < 0 ? 'loss' : undefined;
}

/** The run-wide metrics as cards. */
export function MetricCardList({ metrics }: { metrics: MetricValues }) {
  return (
    <dl className="metric-cards">
      {METRIC_CARDS.map((card) => (
        <div className={`metric-card ${card.tone?.(metrics) ?? ''}`.trim()} key={card.label}>
          <dt>{card.label}</dt>
          <dd>{card.value(metrics)}</dd>
        </div>
      ))}
    </dl>
  );
}

/** The run's metrics over every trade, as cards; then each symbol's main figures. */
export function MetricCards({ metrics }: { metrics: Metrics }) {
  const symbols = Object.entries(metrics.perSymbol);
  return (
    <>
      <MetricCardList metrics={metrics} />
      {symbols.length > 1 ? (
        <div className="table-wrap">
          <table>
            <caption>Per symbol</caption>
            <thead>
              <tr>
                <th scope="col">Symbol</th>
                <th scope="col" className="numeric">
                  Return
                </th>
                <th scope="col" className="numeric">
                  Max drawdown
                </th>
                <th scope="col" className="numeric">
                  Win rate
                </th>
                <th scope="col" className="numeric">
                  Trades
                </th>
                <th scope="col" className="numeric">
                  Buy and hold
                </th>
              </tr>
            </thead>
            <tbody>
              {symbols.map(([symbol, m]) => (
                <tr key={symbol}>
                  <th scope="row">{symbol}</th>
                  <td className="numeric">{formatPercent(m.totalReturn)}</td>
                  <td className="numeric">{formatPercent(m.maxDrawdown)}</td>
                  <td className="numeric">{formatPercent(m.winRate)}</td>
                  <td className="numeric">{m.tradeCount}</td>
                  <td className="numeric">{formatPercent(m.buyAndHoldReturn)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </>
  );
}

import { formatMoney, formatNumber, formatPercent } from '../ui/format.js';
import type { VerificationRecord } from './record-values.js';

type Metrics = NonNullable<VerificationRecord['forward']['metrics']>;

const ROWS: Array<{ label: string; value(m: Metrics): string }> = [
  { label: 'Return', value: (m) => formatPercent(m.totalReturn) },
  { label: 'CAGR', value: (m) => formatPercent(m.cagr) },
  { label: 'Max drawdown', value: (m) => formatPercent(m.maxDrawdown) },
  {
    label: 'Recovery from it',
    value: (m) => (m.maxDrawdownRecoveryDays === null ? (m.maxDrawdown ? 'not recovered' : '–') : `${formatNumber(m.maxDrawdownRecoveryDays)} days`),
  },
  { label: 'Sharpe', value: (m) => formatNumber(m.sharpe) },
  { label: 'PSR (Sharpe above 0)', value: (m) => formatPercent(m.psr) },
  { label: 'DSR (deflated by the search effort)', value: (m) => formatPercent(m.dsr) },
  { label: 'Exposure', value: (m) => formatPercent(m.exposure) },
  { label: 'Trades', value: (m) => m.tradeCount.toLocaleString('en') },
  { label: 'Fees paid', value: (m) => formatMoney(m.feesPaid) },
  { label: 'Funding paid', value: (m) => formatMoney(m.fundingPaid) },
];

const cell = (metrics: Metrics | null | undefined, row: (typeof ROWS)[number]) => (metrics ? row.value(metrics) : '–');

/** The verified figures of both segments side by side: the platform backtest and the forward record. */
export function RecordMetricsTable({ record }: { record: VerificationRecord }) {
  const backtest = record.backtest?.metrics;
  const forward = record.forward.metrics;
  return (
    <div className="table-wrap">
      <table className="record-metrics">
        <caption className="visually-hidden">Verified metrics of the platform backtest and the forward record</caption>
        <thead>
          <tr>
            <th scope="col">Metric</th>
            <th scope="col" className="numeric">
              Platform backtest
            </th>
            <th scope="col" className="numeric">
              Forward record
            </th>
          </tr>
        </thead>
        <tbody>
          {ROWS.map((row) => (
            <tr key={row.label}>
              <th scope="row">{row.label}</th>
              <td className="numeric">{cell(backtest, row)}</td>
              <td className="numeric">{cell(forward, row)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

import type { OptimizationDetail } from '@stratbox/client';
import { formatNumber, formatPercent, formatTime } from '../ui/format.js';
import { formatParams } from './format-params.js';

/** Why the statistics are not there: still computing (before the end), or the run ended without them. */
function Pending({ status }: { status: OptimizationDetail['status'] }) {
  const text =
    status === 'queued' || status === 'running'
      ? 'Computing: the statistics come when every trial has run.'
      : `None: the optimization ${status === 'cancelled' ? 'was cancelled' : 'failed'} before they were computed.`;
  return <p className="muted statistics-pending">{text}</p>;
}

/** How far the winner can be trusted: Deflated Sharpe Ratio, PBO, walk-forward efficiency and the folds. */
export function OptimizationStatistics({ optimization }: { optimization: OptimizationDetail }) {
  const results = optimization.results;
  if (!results) {
    return (
      <section aria-labelledby="statistics-title">
        <h2 id="statistics-title">Statistics</h2>
        <Pending status={optimization.status} />
      </section>
    );
  }
  const { deflatedSharpe: dsr, pbo } = results.overfitting;
  const tooFew = 'Not computed: too few completed trials or periods';
  return (
    <section aria-labelledby="statistics-title">
      <h2 id="statistics-title">Statistics</h2>
      <dl className="metric-cards statistics">
        <div className="metric-card">
          <dt>Deflated Sharpe Ratio</dt>
          <dd>{dsr ? formatPercent(dsr.value) : '–'}</dd>
          <dd className="statistic-note">
            {dsr
              ? `Chance the best Sharpe (${formatNumber(dsr.sharpe)} a period) beats the best of ${dsr.trials} lucky trials (${formatNumber(dsr.expectedMaxSharpe)}), over ${dsr.periods} periods`
              : tooFew}
          </dd>
        </div>
        <div className="metric-card">
          <dt>Probability of Backtest Overfitting</dt>
          <dd>{pbo ? formatPercent(pbo.pbo) : '–'}</dd>
          <dd className="statistic-note">
            {pbo
              ? `Share of ${pbo.combinations} splits (${pbo.partitions} partitions of ${pbo.periods} periods) whose in-sample best fell to the bottom half`
              : tooFew}
          </dd>
        </div>
        <div className="metric-card">
          <dt>Walk-forward efficiency</dt>
          <dd>{formatNumber(results.walkForwardEfficiency)}</dd>
          <dd className="statistic-note">
            {results.folds.length === 0 ? 'No validation folds' : 'Mean over the folds of out-of-sample over in-sample annualized return'}
          </dd>
        </div>
      </dl>
      {results.folds.length > 0 ? (
        <div className="table-wrap">
          <table className="folds-table">
            <caption>Validation folds: each fold’s in-sample winner, tested on the block after it</caption>
            <thead>
              <tr>
                <th scope="col">Fold</th>
                <th scope="col">In sample</th>
                <th scope="col">Out of sample</th>
                <th scope="col">Winner</th>
                <th scope="col" className="numeric">
                  In-sample return
                </th>
                <th scope="col" className="numeric">
                  Out-of-sample return
                </th>
                <th scope="col" className="numeric">
                  Efficiency
                </th>
              </tr>
            </thead>
            <tbody>
              {results.folds.map((f) => (
                <tr key={f.index}>
                  <th scope="row">{f.index + 1}</th>
                  <td>
                    {formatTime(f.inSample.start)} to {formatTime(f.inSample.end)}
                  </td>
                  <td>
                    {formatTime(f.outOfSample.start)} to {formatTime(f.outOfSample.end)}
                  </td>
                  <td>{f.params ? formatParams(f.params, optimization.searchSpace) : 'none feasible'}</td>
                  <td className="numeric">{formatPercent(f.inSample.metrics?.totalReturn)}</td>
                  <td className="numeric">{formatPercent(f.outOfSample.metrics?.totalReturn)}</td>
                  <td className="numeric">{formatNumber(f.efficiency)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </section>
  );
}

import type { OptimizationDetail } from '@stratbox/client';
import { MetricCardList } from '../ui/metric-cards.js';
import { Link } from '../routing/link.js';
import { formatNumber } from '../ui/format.js';
import { objectiveLabel } from './optimization-form-values.js';

/** The best feasible trial: its parameters (the searched ones first), its objective and metrics, and the full backtest of them. */
export function OptimizationBest({ optimization }: { optimization: OptimizationDetail }) {
  const best = optimization.best;
  if (!best) {
    return (
      <section aria-labelledby="best-title">
        <h2 id="best-title">Best parameters</h2>
        <p className="muted">No trial was feasible: none completed with a defined objective within the constraints.</p>
      </section>
    );
  }
  const searched = Object.keys(optimization.searchSpace);
  const names = [...searched, ...Object.keys(best.params).filter((n) => !searched.includes(n))];
  return (
    <section aria-labelledby="best-title">
      <div className="page-header">
        <h2 id="best-title">Best parameters</h2>
        {best.backtestId ? (
          <Link className="button primary" to={{ name: 'backtest', id: best.backtestId }}>
            Full backtest of the best parameters
          </Link>
        ) : (
          <span className="muted">The full backtest of these parameters is queued when the optimization completes.</span>
        )}
      </div>
      <div className="best-summary">
        <table className="best-params">
          <caption>
            {objectiveLabel(optimization.objective)} {formatNumber(best.objective)}
            {best.fold !== null ? ` (winner of fold ${best.fold + 1}, the last)` : ''}
          </caption>
          <thead>
            <tr>
              <th scope="col">Parameter</th>
              <th scope="col">Value</th>
            </tr>
          </thead>
          <tbody>
            {names.map((name) => (
              <tr key={name} data-param={name}>
                <th scope="row">
                  {name}
                  {searched.includes(name) ? '' : ' (fixed)'}
                </th>
                <td>
                  <code>{best.params[name]}</code>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        <div>
          <p className="muted small">
            The winning trial’s metrics{best.fold !== null ? ' over its in-sample window' : ''}; the full backtest runs these parameters over the whole range.
          </p>
          <MetricCardList metrics={best.metrics} />
        </div>
      </div>
    </section>
  );
}

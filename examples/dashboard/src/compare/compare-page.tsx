import type { BacktestDetail } from '@stratbox/client';
import { Link } from '../routing/link.js';
import { useClient } from '../session/session-context.js';
import { ErrorBanner } from '../ui/error-banner.js';
import { Loading } from '../ui/loading.js';
import { useAsync } from '../ui/use-async.js';
import { CompareChart } from './compare-chart.js';
import { CompareMetrics } from './compare-metrics.js';

const describeRun = (b: BacktestDetail) => `${b.symbols.join(', ')} ${b.timeframe}, ${b.startDate} to ${b.endDate}`;

/** Two completed backtests: their equity on one chart (rebased to the same start) and their metrics side by side. */
export function CompareBacktestsPage({ a, b }: { a: string; b: string }) {
  const client = useClient();
  const runs = useAsync(`compare:${a}:${b}`, (signal) =>
    Promise.all([client.backtests.get({ params: { id: a } }, { signal }), client.backtests.get({ params: { id: b } }, { signal })]),
  );
  const [runA, runB] = runs.data ?? [];
  const unfinished = runs.data?.filter((run) => run.status !== 'completed') ?? [];

  return (
    <section>
      <div className="page-header">
        <h1>Compare backtests</h1>
        <Link to={{ name: 'backtests' }}>Back to the backtests</Link>
      </div>
      <ErrorBanner error={runs.error} title="Could not load both backtests" />
      {!runs.data && runs.loading ? <Loading label="Loading both backtests…" /> : null}
      {runA && runB ? (
        <>
          <dl className="plan-summary">
            {[
              ['A', runA],
              ['B', runB],
            ].map(([label, run]) => (
              <div key={label as string}>
                <dt>Run {label as string}</dt>
                <dd className="plan-value">
                  <Link to={{ name: 'backtest', id: (run as BacktestDetail).id }}>{describeRun(run as BacktestDetail)}</Link>
                </dd>
              </div>
            ))}
          </dl>
          {unfinished.length > 0 ? (
            <p className="muted" role="status">
              Only completed backtests can be compared: {unfinished.map((run) => `${run.id} is ${run.status}`).join('; ')}.
            </p>
          ) : (
            <>
              <section aria-labelledby="compare-equity-title">
                <h2 id="compare-equity-title">Equity</h2>
                <CompareChart
                  a={{ label: describeRun(runA), points: runA.equityCurve ?? [] }}
                  b={{ label: describeRun(runB), points: runB.equityCurve ?? [] }}
                />
              </section>
              <section aria-labelledby="compare-metrics-title">
                <h2 id="compare-metrics-title">Metrics</h2>
                {runA.metrics && runB.metrics ? <CompareMetrics a={runA.metrics} b={runB.metrics} /> : <p className="muted">A run has no metrics.</p>}
              </section>
            </>
          )}
        </>
      ) : null}
    </section>
  );
}

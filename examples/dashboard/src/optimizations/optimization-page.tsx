import { useEffect, useState } from 'react';
import { isFinished } from '../ui/final-status.js';
import { StatusBadge } from '../ui/status-badge.js';
import { RunTargetLink } from '../marketplace/run-target-link.js';
import { useRunTarget } from '../marketplace/use-run-target.js';
import { Link } from '../routing/link.js';
import { useClient } from '../session/session-context.js';
import { ErrorBanner } from '../ui/error-banner.js';
import { FailureBanner } from '../ui/failure-banner.js';
import { formatMoney, formatTime } from '../ui/format.js';
import { RecordPlaceholder } from '../ui/record-placeholder.js';
import { useAsync } from '../ui/use-async.js';
import { describeSearch } from './describe-search.js';
import { methodLabel } from './method-label.js';
import { OptimizationBest } from './optimization-best.js';
import { objectiveLabel } from './optimization-form-values.js';
import { OptimizationProgressCard } from './optimization-progress.js';
import { OptimizationStatistics } from './optimization-statistics.js';
import { SensitivityView } from './sensitivity-view.js';
import { TrialsTable } from './trials-table.js';

/** One optimization: its settings, live progress while it runs, then the best parameters, the statistics, the sensitivity and every trial. */
export function OptimizationPage({ id }: { id: string }) {
  const client = useClient();
  const optimization = useAsync(`optimization:${id}`, (signal) => client.optimizations.get({ params: { id } }, { signal }));
  const o = optimization.data;
  const target = useRunTarget(o?.strategyId ?? '');
  // an optimization seen unfinished keeps its progress bar (at 100%) above its results
  const [watched, setWatched] = useState(false);
  const running = o !== undefined && !isFinished(o.status);
  useEffect(() => {
    if (running) setWatched(true);
  }, [running]);
  if (!o) return <RecordPlaceholder title="Optimization" what="optimization" error={optimization.error} loading={optimization.loading} />;
  const constraints = [
    o.constraints.minTrades !== undefined ? `at least ${o.constraints.minTrades} trades` : '',
    o.constraints.maxDrawdown !== undefined ? `drawdown at most ${Math.round(o.constraints.maxDrawdown * 100)}%` : '',
  ].filter(Boolean);
  return (
    <section>
      <div className="page-header">
        <div>
          <h1>
            Optimization <StatusBadge status={o.status} />
          </h1>
          <p className="muted">
            <RunTargetLink target={target} /> v{o.strategyVersion} · {o.symbols.join(', ')} · {o.startDate} to {o.endDate} · {o.timeframe} · {o.marketType} ·{' '}
            {o.leverage}x · capital {formatMoney(o.initialCapital)}
          </p>
          <p className="muted small">
            Searching {describeSearch(o.searchSpace)} · {methodLabel(o)} · maximizing {objectiveLabel(o.objective)}
            {constraints.length ? ` · ${constraints.join(', ')}` : ''} · {o.trialsTotal.toLocaleString('en')} trials · created {formatTime(o.createdAt)} ·{' '}
            <code>{o.id}</code>
          </p>
        </div>
        <Link className="button" to={{ name: 'newOptimization', strategyId: target.id }}>
          Optimize again
        </Link>
      </div>
      <ErrorBanner error={optimization.error} title="Could not refresh the optimization" />
      {running || watched ? <OptimizationProgressCard optimization={o} onFinal={optimization.reload} /> : null}
      {o.status === 'failed' ? <FailureBanner title="The optimization failed" error={o.error} /> : null}
      {o.status === 'cancelled' ? (
        <p className="muted">
          This optimization was cancelled{o.finishedAt ? ` at ${formatTime(o.finishedAt)}` : ''}; its {o.trialsDone.toLocaleString('en')} stored trial(s) are
          listed below.
        </p>
      ) : null}
      {o.status === 'completed' ? <OptimizationBest optimization={o} /> : null}
      <OptimizationStatistics optimization={o} />
      <SensitivityView optimization={o} />
      <TrialsTable optimization={o} />
    </section>
  );
}

import { useEffect, useState } from 'react';
import { RunTargetLink } from '../marketplace/run-target-link.js';
import { useRunTarget } from '../marketplace/use-run-target.js';
import { Link } from '../routing/link.js';
import { useClient } from '../session/session-context.js';
import { ErrorBanner } from '../ui/error-banner.js';
import { FailureBanner } from '../ui/failure-banner.js';
import { formatMoney, formatTime } from '../ui/format.js';
import { RecordPlaceholder } from '../ui/record-placeholder.js';
import { useAsync } from '../ui/use-async.js';
import { BacktestProgress } from './backtest-progress.js';
import { backtestKey, loadBacktest } from './backtest-query.js';
import { BacktestResults } from './backtest-results.js';
import { isFinished } from '../ui/final-status.js';
import { StatusBadge } from '../ui/status-badge.js';

/** One backtest: its settings, its live progress while it runs, its results once completed. */
export function BacktestPage({ id }: { id: string }) {
  const client = useClient();
  const backtest = useAsync(backtestKey(id), (signal) => loadBacktest(client, id, signal));
  const b = backtest.data;
  // a bought strategy is named and linked by its listing, and run again by it
  const target = useRunTarget(b?.strategyId ?? '');
  // a run seen unfinished keeps its progress bar (at 100%) above its results
  const [watched, setWatched] = useState(false);
  const running = b !== undefined && !isFinished(b.status);
  useEffect(() => {
    if (running) setWatched(true);
  }, [running]);
  if (!b) return <RecordPlaceholder title="Backtest" what="backtest" error={backtest.error} loading={backtest.loading} />;
  return (
    <section>
      <div className="page-header">
        <div>
          <h1>
            Backtest <StatusBadge status={b.status} />
          </h1>
          <p className="muted">
            <RunTargetLink target={target} /> v{b.strategyVersion} · {b.symbols.join(', ')} · {b.startDate} to {b.endDate} · {b.timeframe} · {b.marketType} ·{' '}
            {b.leverage}x · capital {formatMoney(b.initialCapital)}
          </p>
          <p className="muted small">
            Fees maker {b.fees.maker}, taker {b.fees.taker} · slippage {b.slippage} · funding {b.funding ? `on (${b.fundingSource ?? 'none paid'})` : 'off'}
            {Object.keys(b.params).length
              ? ` · params ${Object.entries(b.params)
                  .map(([k, v]) => `${k}=${v}`)
                  .join(', ')}`
              : ''}{' '}
            · data {b.dataSource ?? '–'} · created {formatTime(b.createdAt)} · <code>{b.id}</code>
          </p>
        </div>
        <div className="actions">
          <Link className="button" to={{ name: 'newOptimization', strategyId: target.id }}>
            Optimize
          </Link>
          <Link className="button" to={{ name: 'newBacktest', strategyId: target.id }}>
            Run another
          </Link>
        </div>
      </div>
      <ErrorBanner error={backtest.error} title="Could not refresh the backtest" />
      {running || watched ? <BacktestProgress backtest={b} onFinal={backtest.reload} /> : null}
      {b.status === 'failed' ? <FailureBanner title="The run failed" error={b.error} /> : null}
      {b.status === 'cancelled' ? <p className="muted">This run was cancelled{b.finishedAt ? ` at ${formatTime(b.finishedAt)}` : ''}.</p> : null}
      {b.status === 'completed' ? <BacktestResults backtest={b} /> : null}
    </section>
  );
}

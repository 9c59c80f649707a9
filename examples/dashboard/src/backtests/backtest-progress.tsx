import type { BacktestProgressData, BacktestSummary } from '@stratbox/client';
import { useClient } from '../session/session-context.js';
import { ErrorBanner } from '../ui/error-banner.js';
import { useAction } from '../ui/use-action.js';
import { isFinished } from './final-status.js';
import { ProgressBar } from './progress-bar.js';
import { StatusBadge } from './status-badge.js';
import { useBacktestProgress } from './use-backtest-progress.js';

/** A queued or running backtest: its live progress and a cancel button. */
export function BacktestProgress({ backtest, onFinal }: { backtest: BacktestSummary; onFinal(event: BacktestProgressData): void }) {
  const client = useClient();
  const progress = useBacktestProgress(backtest, onFinal);
  const cancelling = useAction();
  const cancel = () => cancelling.run(() => client.backtests.cancel({ params: { id: backtest.id } }));

  const bars = progress.totalBars ? `${(progress.processedBars ?? 0).toLocaleString('en')} of ${progress.totalBars.toLocaleString('en')} bars` : undefined;
  return (
    <section className="card" aria-labelledby="progress-title">
      <div className="page-header">
        <h2 id="progress-title">
          Progress <StatusBadge status={progress.status} />
        </h2>
        {isFinished(progress.status) ? null : (
          <button type="button" className="danger" onClick={cancel} disabled={cancelling.busy}>
            {cancelling.busy ? 'Cancelling…' : 'Cancel'}
          </button>
        )}
      </div>
      <ProgressBar value={progress.progress} label="Backtest progress" detail={progress.status === 'queued' ? 'waiting for a sandbox' : bars} />
      <ErrorBanner error={progress.error} title="Live progress stopped; reload the page to see where the run is" />
      <ErrorBanner error={cancelling.error} title="Could not cancel" />
    </section>
  );
}

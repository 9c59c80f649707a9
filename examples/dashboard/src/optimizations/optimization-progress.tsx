import type { OptimizationProgressData, OptimizationSummary } from '@stratbox/client';
import { useState } from 'react';
import { isFinished } from '../backtests/final-status.js';
import { ProgressBar } from '../backtests/progress-bar.js';
import { StatusBadge } from '../backtests/status-badge.js';
import { useClient } from '../session/session-context.js';
import { ConfirmDialog } from '../ui/confirm-dialog.js';
import { ErrorBanner } from '../ui/error-banner.js';
import { formatNumber } from '../ui/format.js';
import { useAction } from '../ui/use-action.js';
import { objectiveLabel } from './optimization-form-values.js';
import { formatParams } from './format-params.js';
import { useOptimizationProgress } from './use-optimization-progress.js';

/** A queued or running optimization: live progress, trials done, the best so far, and Cancel (confirmed first). */
export function OptimizationProgressCard({ optimization, onFinal }: { optimization: OptimizationSummary; onFinal(event: OptimizationProgressData): void }) {
  const client = useClient();
  const progress = useOptimizationProgress(optimization, onFinal);
  const cancelling = useAction();
  const [asking, setAsking] = useState(false);
  const cancel = async () => {
    await cancelling.run(() => client.optimizations.cancel({ params: { id: optimization.id } }));
    setAsking(false);
  };
  const trials = `${progress.trialsDone.toLocaleString('en')} of ${progress.trialsTotal.toLocaleString('en')} trials`;
  return (
    <section className="card" aria-labelledby="progress-title">
      <div className="page-header">
        <h2 id="progress-title">
          Progress <StatusBadge status={progress.status} />
        </h2>
        {isFinished(progress.status) ? null : (
          <button type="button" className="danger" onClick={() => setAsking(true)} disabled={cancelling.busy}>
            {cancelling.busy ? 'Cancelling…' : 'Cancel'}
          </button>
        )}
      </div>
      <ProgressBar value={progress.progress} label="Optimization progress" detail={progress.status === 'queued' ? 'waiting for a sandbox' : trials} />
      <p className="best-so-far" aria-live="polite">
        {progress.best
          ? `Best so far: ${objectiveLabel(optimization.objective)} ${formatNumber(progress.best.objective)} with ${formatParams(progress.best.params, optimization.searchSpace)}`
          : 'No feasible trial yet.'}
      </p>
      <ErrorBanner error={progress.error} title="Live progress stopped; reload the page to see where the optimization is" />
      <ErrorBanner error={cancelling.error} title="Could not cancel" />
      <ConfirmDialog
        open={asking}
        title="Cancel this optimization?"
        confirmLabel="Cancel optimization"
        danger
        busy={cancelling.busy}
        onConfirm={cancel}
        onCancel={() => setAsking(false)}
      >
        <p>The running trials stop within a second. The trials already stored are kept and listed; no best backtest is run.</p>
      </ConfirmDialog>
    </section>
  );
}

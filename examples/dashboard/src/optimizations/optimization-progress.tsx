import type { OptimizationProgressData, OptimizationSummary } from '@stratbox/client';
import { useState } from 'react';
import { useClient } from '../session/session-context.js';
import { ConfirmDialog } from '../ui/confirm-dialog.js';
import { formatNumber } from '../ui/format.js';
import { RunProgressCard } from '../ui/run-progress-card.js';
import { useAction } from '../ui/use-action.js';
import { useRunProgress } from '../ui/use-run-progress.js';
import { formatParams } from './format-params.js';
import { objectiveLabel } from './optimization-form-values.js';

const view = (event: OptimizationProgressData): OptimizationProgressData => event;

/** A queued or running optimization: live progress, trials done, the best so far, and Cancel (confirmed first). */
export function OptimizationProgressCard({ optimization, onFinal }: { optimization: OptimizationSummary; onFinal(event: OptimizationProgressData): void }) {
  const client = useClient();
  const { id, status, progress: done, trialsDone, trialsTotal, best } = optimization;
  const initial: OptimizationProgressData = { optimizationId: id, status, progress: done, trialsDone, trialsTotal, best };
  const progress = useRunProgress({ id, initial, watch: client.optimizations.watch, view }, onFinal);
  const cancelling = useAction();
  const [asking, setAsking] = useState(false);
  const cancel = async () => {
    await cancelling.run(() => client.optimizations.cancel({ params: { id } }));
    setAsking(false);
  };
  const trials = `${progress.trialsDone.toLocaleString('en')} of ${progress.trialsTotal.toLocaleString('en')} trials`;
  return (
    <RunProgressCard
      what="optimization"
      progress={progress}
      detail={trials}
      onCancel={() => setAsking(true)}
      cancelling={cancelling}
      dialog={
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
      }
    >
      <p className="best-so-far" aria-live="polite">
        {progress.best
          ? `Best so far: ${objectiveLabel(optimization.objective)} ${formatNumber(progress.best.objective)} with ${formatParams(progress.best.params, optimization.searchSpace)}`
          : 'No feasible trial yet.'}
      </p>
    </RunProgressCard>
  );
}

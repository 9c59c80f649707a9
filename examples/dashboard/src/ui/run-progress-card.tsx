import type { ReactNode } from 'react';
import type { ErrorView } from './describe-error.js';
import { ErrorBanner } from './error-banner.js';
import { isFinished, type RunStatus } from './final-status.js';
import { ProgressBar } from './progress-bar.js';
import type { RunProgress } from './use-run-progress.js';
import { StatusBadge } from './status-badge.js';

interface RunProgressCardProps {
  /** The run's kind as the card names it: "backtest", "optimization". */
  what: string;
  progress: RunProgress<{ status: RunStatus; progress: number }>;
  /** What the bar says beside its percentage once the run has started ("1,200 of 5,000 bars"). */
  detail: string | undefined;
  /** Cancel was pressed (shown until the run is finished). */
  onCancel(): void;
  cancelling: { busy: boolean; error: ErrorView | null };
  /** Shown below the bar (the best so far), then `dialog` after the banners. */
  children?: ReactNode;
  dialog?: ReactNode;
}

/** A queued or running run's card: its status, its live progress, a Cancel button while it runs, and why the live progress or a cancel failed. */
export function RunProgressCard({ what, progress, detail, onCancel, cancelling, children, dialog }: RunProgressCardProps) {
  const label = `${what[0]!.toUpperCase()}${what.slice(1)} progress`;
  return (
    <section className="card" aria-labelledby="progress-title">
      <div className="page-header">
        <h2 id="progress-title">
          Progress <StatusBadge status={progress.status} />
        </h2>
        {isFinished(progress.status) ? null : (
          <button type="button" className="danger" onClick={onCancel} disabled={cancelling.busy}>
            {cancelling.busy ? 'Cancelling…' : 'Cancel'}
          </button>
        )}
      </div>
      <ProgressBar value={progress.progress} label={label} detail={progress.status === 'queued' ? 'waiting for a sandbox' : detail} />
      {children}
      <ErrorBanner error={progress.error} title={`Live progress stopped; reload the page to see where the ${what} is`} />
      <ErrorBanner error={cancelling.error} title="Could not cancel" />
      {dialog}
    </section>
  );
}

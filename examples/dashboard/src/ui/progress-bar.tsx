/** A labelled progress bar with its percentage written out. */
export function ProgressBar({ value, label, detail }: { value: number; label: string; detail?: string }) {
  const percent = Math.round(Math.min(1, Math.max(0, value)) * 100);
  return (
    <div className="progress">
      <div
        className="progress-track"
        role="progressbar"
        aria-label={label}
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={percent}
        aria-valuetext={`${percent}%`}
      >
        <div className="progress-fill" style={{ width: `${percent}%` }} />
      </div>
      <span className="progress-text">
        {percent}%{detail ? ` · ${detail}` : ''}
      </span>
    </div>
  );
}

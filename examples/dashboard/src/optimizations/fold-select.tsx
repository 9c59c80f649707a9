import type { OptimizationSummary } from '@stratbox/client';

/** The validation folds an optimization searches: the walk-forward's folds, 1 with a holdout, 0 without validation. */
export function foldCount(validation: OptimizationSummary['validation']): number {
  if (validation.kind === 'walk-forward') return validation.folds;
  return validation.kind === 'holdout' ? 1 : 0;
}

/**
 * "Fold": All, or one fold (shown 1-based; `fold` is the API's 0-based index, null for all).
 * Rendered only when there are two folds or more to choose between.
 */
export function FoldSelect({ folds, fold, onChange }: { folds: number; fold: number | null; onChange(fold: number | null): void }) {
  if (folds < 2) return null;
  return (
    <div className="field">
      <label htmlFor="trials-fold">Fold</label>
      <select id="trials-fold" value={fold ?? ''} onChange={(e) => onChange(e.target.value === '' ? null : Number(e.target.value))}>
        <option value="">All</option>
        {Array.from({ length: folds }, (_, i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: the folds are their indexes
          <option key={i} value={i}>
            {i + 1}
          </option>
        ))}
      </select>
    </div>
  );
}

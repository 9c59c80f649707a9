import type { OptimizationSummary } from '@stratbox/client';

/** The search and its validation in a few words: `grid · walk-forward 3 folds (rolling)`, `random 50 (seed 1) · holdout 25%`. */
export function methodLabel(o: Pick<OptimizationSummary, 'method' | 'validation'>): string {
  const method = o.method.kind === 'grid' ? 'grid' : `random ${o.method.count} (seed ${o.method.seed})`;
  const v = o.validation;
  const validation =
    v.kind === 'none'
      ? ''
      : v.kind === 'holdout'
        ? ` · holdout ${Math.round(v.fraction * 100)}%`
        : ` · walk-forward ${v.folds} fold${v.folds === 1 ? '' : 's'} (${v.mode})`;
  return method + validation;
}

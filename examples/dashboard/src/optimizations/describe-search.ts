import type { OptimizationSummary } from '@stratbox/client';

/** A search space in words: `fast 5 to 15 step 5, mode in trend, revert`. */
export function describeSearch(space: OptimizationSummary['searchSpace']): string {
  return Object.entries(space)
    .map(([name, s]) => ('values' in s ? `${name} in ${s.values.join(', ')}` : `${name} ${s.min} to ${s.max} step ${s.step}`))
    .join('; ');
}

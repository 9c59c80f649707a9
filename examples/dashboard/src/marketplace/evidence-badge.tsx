import type { EvidenceBadgeName } from './record-values.js';

/** A record's evidence badge: the word carries the meaning, the colour only repeats it. */
export function EvidenceBadge({ badge }: { badge: EvidenceBadgeName }) {
  return <span className={`badge evidence-badge evidence-${badge}`}>{badge}</span>;
}

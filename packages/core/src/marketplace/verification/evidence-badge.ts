import type { EvidenceBadge } from '@stratbox/contract';
import type { VerificationSettings } from './verification-settings.js';

/**
 * The badge a record's forward evidence earns: `insufficient` below `emergingDays` forward days
 * or `emergingTrades` forward trades, `established` from `establishedDays` and
 * `establishedTrades`, else `emerging`.
 */
export function badgeFor(forwardDays: number, forwardTrades: number, thresholds: VerificationSettings['badge']): EvidenceBadge {
  if (forwardDays < thresholds.emergingDays || forwardTrades < thresholds.emergingTrades) return 'insufficient';
  if (forwardDays >= thresholds.establishedDays && forwardTrades >= thresholds.establishedTrades) return 'established';
  return 'emerging';
}

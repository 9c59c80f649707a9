import type { DriftReport } from '@stratbox/client';
import { formatNumber } from '../ui/format.js';
import { formatShare } from './drift-format.js';

type Breach = DriftReport['alerts']['breached'][number];

const DESCRIBE: Record<Breach['metric'], (b: Breach) => string> = {
  correlation: (b) => `Returns correlation ${formatNumber(b.value)} is below ${formatNumber(b.limit)}`,
  dtw: (b) => `DTW distance ${formatNumber(b.value)} is above ${formatNumber(b.limit)}`,
  slippage: (b) => `p95 slippage is ${formatNumber(b.value)} bps, above the limit of ${formatNumber(b.limit)} bps`,
  parity: (b) => `Decision parity missed: ${formatShare(b.value)} of both runs' intents were made by both`,
};

/** The alert thresholds this report crossed, if any. */
export function DriftBreaches({ breached }: { breached: Breach[] }) {
  if (breached.length === 0) return null;
  return (
    <div className="error-banner drift-breaches" role="alert">
      <p className="error-title">{breached.length === 1 ? 'An alert threshold is crossed' : `${breached.length} alert thresholds are crossed`}</p>
      <ul>
        {breached.map((b) => (
          <li key={b.metric}>{DESCRIBE[b.metric](b)}</li>
        ))}
      </ul>
    </div>
  );
}

import { formatNumber, formatPercent } from '../ui/format.js';
import type { Listing } from './listing.js';
import { EvidenceBadge } from './evidence-badge.js';
import { countOf, formatDays } from './record-values.js';

type Summary = NonNullable<Listing['record']>;

/**
 * A listing's record in one line: its badge, then the forward record's days, return and Sharpe
 * (and, with `backtest`, the platform backtest's return and the DSR), or that it is pending.
 */
export function RecordSummary({ summary, backtest = false }: { summary: Listing['record']; backtest?: boolean }) {
  if (!summary) return <p className="record-summary muted small">No verified record.</p>;
  return (
    <p className="record-summary small">
      <EvidenceBadge badge={summary.badge} /> {figures(summary, backtest)}
    </p>
  );
}

function figures(s: Summary, backtest: boolean): string {
  const forward = `forward ${formatDays(s.forwardDays)}, ${countOf(s.forwardTrades, 'trade')}, return ${formatPercent(s.forwardReturn)}, Sharpe ${formatNumber(s.forwardSharpe)}`;
  if (s.status === 'pending') return `${forward} · platform backtest pending`;
  if (s.status === 'failed') return `${forward} · the platform backtest failed`;
  return backtest
    ? `${forward} · backtest return ${formatPercent(s.backtestReturn)} · DSR ${formatPercent(s.dsr)} · record ready`
    : `${forward} · DSR ${formatPercent(s.dsr)}`;
}

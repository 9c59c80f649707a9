import { formatNumber, formatPercent, formatTime } from '../ui/format.js';
import { EvidenceBadge } from './evidence-badge.js';
import { RecordChart } from './record-chart.js';
import { RecordIdentity } from './record-identity.js';
import { RecordMetricsTable } from './record-metrics-table.js';
import { badgeMeaning, buyersSentence, type ListingRecordDetail, searchEffortSentence, type VerificationRecord } from './record-values.js';

/** Whether the record is measured yet, or why it is not. */
function RecordStatusNote({ record }: { record: VerificationRecord }) {
  if (record.status === 'pending') {
    return (
      <p className="notice record-pending" role="status">
        Pending: the platform is running its own backtest of version {record.identity.strategyVersion}. The record shows here when it is done.
      </p>
    );
  }
  if (record.status === 'failed') {
    return (
      <p className="record-failed" role="status">
        The platform could not verify this version{record.error ? `: ${record.error.message}` : ''}.
      </p>
    );
  }
  return null;
}

/** The badge and what it means for this record. */
function BadgeLine({ record, thresholds }: { record: VerificationRecord; thresholds: ListingRecordDetail['thresholds'] }) {
  return (
    <div className="record-badge">
      <EvidenceBadge badge={record.badge} />
      <p>{badgeMeaning(record.badge, record.forward.days, record.forward.metrics?.tradeCount ?? 0, thresholds)}</p>
    </div>
  );
}

function SearchEffort({ record }: { record: VerificationRecord }) {
  const m = record.backtest?.metrics;
  return (
    <p className="search-effort">
      {searchEffortSentence(record.searchEffort)}{' '}
      {m
        ? `Counting that search as its number of trials, the backtest’s Sharpe of ${formatNumber(m.sharpe)} has a Deflated Sharpe Ratio (DSR) of ${formatPercent(m.dsr)}, against a Probabilistic Sharpe Ratio (PSR) of ${formatPercent(m.psr)} with no search counted: the chance its skill is real, the more searched, the lower.`
        : 'The Deflated Sharpe Ratio counts them once the platform backtest is done.'}
    </p>
  );
}

/** One version's record in the lineage: collapsed to its badge and figures. */
function EarlierRecord({ record }: { record: VerificationRecord }) {
  return (
    <li>
      <h4>
        Version {record.identity.strategyVersion} <EvidenceBadge badge={record.badge} />
      </h4>
      <p className="muted small">
        Recorded {formatTime(record.createdAt)}, replaced {formatTime(record.supersededAt)}; {searchEffortSentence(record.searchEffort)}
      </p>
      <RecordStatusNote record={record} />
      <RecordMetricsTable record={record} />
    </li>
  );
}

/**
 * A listing's verified record, first on its page: the evidence badge and what it means, the
 * equity of the platform backtest then the forward record, the figures of both, the seller's
 * search effort with the DSR, what exactly was run, and the earlier versions' records collapsed.
 */
export function ListingRecord({ detail }: { detail: ListingRecordDetail }) {
  const record = detail.current;
  return (
    <section aria-labelledby="record-title" className="listing-record">
      <h2 id="record-title">Verified record</h2>
      {record ? (
        <>
          <BadgeLine record={record} thresholds={detail.thresholds} />
          <RecordStatusNote record={record} />
          <RecordChart record={record} />
          <h3>Verified metrics</h3>
          <RecordMetricsTable record={record} />
          <h3>Search effort</h3>
          <SearchEffort record={record} />
          <h3>What the platform ran</h3>
          <RecordIdentity record={record} />
        </>
      ) : (
        <p className="muted">This listing has no current record.</p>
      )}
      {detail.buyers ? <p className="record-buyers">{buyersSentence(detail.buyers)}</p> : null}
      {detail.lineage.length > 0 ? (
        <details className="record-lineage">
          <summary>Earlier versions’ records ({detail.lineage.length})</summary>
          <ul>
            {detail.lineage.map((r) => (
              <EarlierRecord key={r.id} record={r} />
            ))}
          </ul>
        </details>
      ) : null}
    </section>
  );
}

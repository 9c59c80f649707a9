import type { Deployment } from '@stratbox/client';
import { EmptyState } from '../ui/empty-state.js';
import { formatMoney, formatNumber, formatPercent, formatTime } from '../ui/format.js';

const STREAM: Record<NonNullable<Deployment['reconciliation']>['stream'], string> = {
  connected: 'Private stream connected',
  polling: 'Stream down: polling over REST',
  none: 'REST polling only',
};

/** The risk limits in force. */
function RiskLimitsView({ risk }: { risk: Deployment['risk'] }) {
  if (!risk) return <p className="muted">No risk limits: nothing halts this deployment on its losses or its order rate.</p>;
  const rows: Array<[string, string]> = [
    ['Max drawdown', risk.maxDrawdown === undefined ? 'none' : formatPercent(risk.maxDrawdown)],
    ['Daily loss limit', risk.dailyLossLimit === undefined ? 'none' : formatPercent(risk.dailyLossLimit)],
    ['Max position notional', risk.maxPositionNotional === undefined ? 'none' : formatMoney(risk.maxPositionNotional)],
    ['Max orders per minute', risk.maxOrdersPerMinute === undefined ? 'none' : formatNumber(risk.maxOrdersPerMinute)],
    ['On a breach', risk.onBreach === 'keep' ? 'keep the positions' : 'close the positions'],
  ];
  return (
    <dl className="metric-cards risk-limits">
      {rows.map(([label, value]) => (
        <div className="metric-card" key={label}>
          <dt>{label}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}

/** The last pre-flight checks of the exchange account. */
function PreflightView({ preflight }: { preflight: Deployment['preflight'] }) {
  if (!preflight) return <EmptyState title="Not checked yet">The checks run when the deployment starts.</EmptyState>;
  return (
    <>
      <p>
        <strong>{preflight.ok ? 'Passed' : 'Failed'}</strong>
        <span className="muted">
          {' '}
          · checked {formatTime(preflight.checkedAt)} · clock offset{' '}
          {preflight.clockOffsetMs === null ? 'not measured' : `${formatNumber(preflight.clockOffsetMs)} ms`}
        </span>
      </p>
      <ul className="check-list">
        {preflight.checks.map((c) => (
          <li key={`${c.name}:${c.message}`} className={c.ok ? 'check-ok' : 'check-failed'}>
            <span className="check-mark">{c.ok ? 'OK' : 'Failed'}</span> <strong>{c.name}</strong>: {c.message}
          </li>
        ))}
      </ul>
    </>
  );
}

/** The state of continuous reconciliation with the exchange. */
function ReconciliationView({ reconciliation }: { reconciliation: Deployment['reconciliation'] }) {
  if (!reconciliation) return <EmptyState title="Not run yet">The store and the exchange are compared on a schedule once the deployment runs.</EmptyState>;
  return (
    <>
      <p>
        Last run {formatTime(reconciliation.lastRunAt)} · {reconciliation.runs} run(s) · {STREAM[reconciliation.stream]}
      </p>
      {reconciliation.mismatches.length === 0 ? (
        <p className="muted">No mismatch found.</p>
      ) : (
        <div className="table-wrap">
          <table>
            <caption>Mismatches (newest last)</caption>
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Kind</th>
                <th scope="col">Symbol</th>
                <th scope="col">What</th>
              </tr>
            </thead>
            <tbody>
              {reconciliation.mismatches.map((m) => (
                <tr key={`${m.at}:${m.kind}:${m.orderId ?? m.symbol}:${m.message}`}>
                  <td>{formatTime(m.at)}</td>
                  <td>{m.kind.replace('_', ' ')}</td>
                  <td>{m.symbol ?? '–'}</td>
                  <td>{m.message}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}

/** The leverage and margin mode the pre-flight sets (perpetuals), or that the account's own are kept. */
function LeverageView({ deployment }: { deployment: Deployment }) {
  if (!deployment.symbols.every((s) => s.includes(':'))) return null;
  const { leverage, marginMode } = deployment;
  return (
    <p className="leverage-setting">
      Leverage: {leverage === null ? "the account's own" : `${formatNumber(leverage)}x`}; margin mode:{' '}
      {marginMode === null ? "the account's own" : marginMode === 'isolated' ? 'isolated' : 'cross'}.
    </p>
  );
}

/** What keeps a live deployment safe: its risk limits, its leverage, the pre-flight checks and reconciliation with the exchange. */
export function DeploymentSafety({ deployment }: { deployment: Deployment }) {
  return (
    <>
      <section aria-labelledby="risk-title">
        <h2 id="risk-title">Risk limits</h2>
        <RiskLimitsView risk={deployment.risk} />
        <LeverageView deployment={deployment} />
      </section>
      <section aria-labelledby="preflight-title">
        <h2 id="preflight-title">Pre-flight checks</h2>
        <PreflightView preflight={deployment.preflight} />
      </section>
      <section aria-labelledby="reconciliation-title">
        <h2 id="reconciliation-title">Reconciliation</h2>
        <ReconciliationView reconciliation={deployment.reconciliation} />
      </section>
    </>
  );
}

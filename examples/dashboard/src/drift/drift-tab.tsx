import { useMemo } from 'react';
import { useClient } from '../session/session-context.js';
import { EmptyState } from '../ui/empty-state.js';
import { ErrorBanner } from '../ui/error-banner.js';
import { formatTime } from '../ui/format.js';
import { Loading } from '../ui/loading.js';
import { useAsync } from '../ui/use-async.js';
import { DriftAlertsForm } from './drift-alerts-form.js';
import { createDriftApi } from './drift-api.js';
import { DriftBreaches } from './drift-breaches.js';
import { DriftCosts } from './drift-costs.js';
import { DriftEquity } from './drift-equity.js';
import { DriftParity } from './drift-parity.js';
import { DriftTrades } from './drift-trades.js';
import { DriftWaterfall } from './drift-waterfall.js';

/**
 * The deployment's drift report (docs/drift.md): how the live run differs from a backtest replayed
 * over the very candles it saw, and why. Loaded when the tab opens; the platform replays the
 * recording, so it can take seconds. Below it, the alert thresholds.
 */
export function DriftTab({ deploymentId }: { deploymentId: string }) {
  const client = useClient();
  const api = useMemo(() => createDriftApi(client, deploymentId), [client, deploymentId]);
  const report = useAsync(`drift:${deploymentId}`, api.report);
  const r = report.data;
  // 409: the deployment has no closed candle yet, so there is nothing to replay
  const noCandles = report.error?.status === 409;
  return (
    <div className="drift-tab">
      <div className="page-header">
        <div>
          <h2>Drift from the backtest</h2>
          <p className="muted small">
            The same strategy version and parameters, backtested over exactly the candles this deployment saw, compared with what it did.
          </p>
        </div>
        <button type="button" onClick={report.reload} disabled={report.loading}>
          {report.loading ? 'Replaying…' : 'Compute again'}
        </button>
      </div>
      {report.loading ? <Loading label="Replaying the deployment’s candles…" /> : null}
      {noCandles ? (
        <EmptyState title="No candles processed yet">
          <p className="muted">The report replays the candles the deployment has processed: ask again once it has seen its first closed candle.</p>
        </EmptyState>
      ) : (
        <ErrorBanner error={report.error} title="Could not compute the drift report" />
      )}
      {r ? (
        <div className="drift-report" data-testid="drift-report">
          <p className="muted small">
            {formatTime(r.window.from)} to {formatTime(r.window.to)} · {r.candles.recorded.toLocaleString('en')} candles processed
            {r.candles.downtime > 0 ? `, ${r.candles.downtime.toLocaleString('en')} missed while down` : ''} · {r.runs.length}{' '}
            {r.runs.length === 1 ? 'run' : 'runs'} · strategy v{r.strategyVersion} · computed {formatTime(r.computedAt)}
          </p>
          <DriftBreaches breached={r.alerts.breached} />
          <DriftParity parity={r.parity} />
          <DriftEquity equity={r.equity} />
          <DriftWaterfall waterfall={r.waterfall} />
          <DriftTrades trades={r.trades} />
          <DriftCosts costs={r.costs} />
        </div>
      ) : null}
      <DriftAlertsForm api={api} deploymentId={deploymentId} />
    </div>
  );
}

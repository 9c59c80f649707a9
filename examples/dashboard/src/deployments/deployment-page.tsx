import { useCallback, useEffect, useState } from 'react';
import { DriftTab } from '../drift/drift-tab.js';
import { RunTargetLink } from '../marketplace/run-target-link.js';
import { useRunTarget } from '../marketplace/use-run-target.js';
import { Link } from '../routing/link.js';
import { useClient } from '../session/session-context.js';
import { ErrorBanner } from '../ui/error-banner.js';
import { FailureBanner } from '../ui/failure-banner.js';
import { formatTime } from '../ui/format.js';
import { PageTabs } from '../ui/page-tabs.js';
import { RecordPlaceholder } from '../ui/record-placeholder.js';
import { useAsync } from '../ui/use-async.js';
import { DeploymentActions } from './deployment-actions.js';
import { DeploymentHaltBanner } from './deployment-halt.js';
import { DeploymentLogs } from './deployment-logs.js';
import { DeploymentOrders } from './deployment-orders.js';
import { DeploymentPositions } from './deployment-positions.js';
import { DeploymentSafety } from './deployment-safety.js';
import { DeploymentStatusBadge } from './deployment-status-badge.js';
import { LiveOrders } from './live-orders.js';
import { useDeploymentTab } from './use-deployment-tab.js';
import { useLiveOrders } from './use-live-orders.js';

const DEPLOYMENT_TABS = [
  { id: 'overview', label: 'Overview' },
  { id: 'drift', label: 'Drift' },
] as const;

/** How often a deployment on its way (starting, stopping) is read again until it gets there. */
const SETTLING_POLL_MS = 2000;
/** How often a running one is read again: a halt (or a failure) may come without an order to tell of it. */
const RUNNING_POLL_MS = 5000;

/**
 * One deployment: status and actions (and why it is halted); on its Overview tab orders as they
 * happen, positions and P&L, its risk limits, pre-flight checks and reconciliation, the order
 * history and the log; on its Drift tab how it differs from its backtest.
 */
export function DeploymentPage({ id }: { id: string }) {
  const client = useClient();
  const deployment = useAsync(`deployment:${id}`, (signal) => client.deployments.get({ params: { id } }, { signal }));
  const positions = useAsync(`positions:${id}`, (signal) => client.deployments.positions({ params: { id } }, { signal }));
  const [refresh, setRefresh] = useState(0);
  const [tab, setTab] = useDeploymentTab();
  const refreshAll = useCallback(() => {
    setRefresh((n) => n + 1);
    positions.reload();
  }, [positions.reload]);
  // an order also tells that the deployment runs: its status is read again with the rest
  const live = useLiveOrders(
    id,
    useCallback(() => {
      refreshAll();
      deployment.reload();
    }, [refreshAll, deployment.reload]),
  );
  const d = deployment.data;
  const target = useRunTarget(d?.strategyId ?? '');
  const settling = d?.status === 'starting' || d?.status === 'stopping';
  const pollMs = settling ? SETTLING_POLL_MS : d?.status === 'running' ? RUNNING_POLL_MS : null;

  // a new status (halted, failed, stopped...) comes with log lines, orders and positions of its own
  const status = d?.status;
  useEffect(() => {
    if (status) refreshAll();
  }, [status, refreshAll]);

  useEffect(() => {
    if (pollMs === null) return;
    const timer = setInterval(deployment.reload, pollMs);
    return () => clearInterval(timer);
  }, [pollMs, deployment.reload]);

  if (!d) return <RecordPlaceholder title="Deployment" what="deployment" error={deployment.error} loading={deployment.loading} />;
  return (
    <section>
      <div className="page-header">
        <div>
          <h1>
            Deployment <DeploymentStatusBadge status={d.status} />
          </h1>
          <p className="muted">
            <RunTargetLink target={target} /> v{d.strategyVersion} · {d.symbols.join(', ')}
            {Object.keys(d.params).length
              ? ` · params ${Object.entries(d.params)
                  .map(([k, v]) => `${k}=${v}`)
                  .join(', ')}`
              : ''}
          </p>
          <p className="muted small">
            Created {formatTime(d.createdAt)} · started {formatTime(d.startedAt)}
            {d.stoppedAt ? ` · stopped ${formatTime(d.stoppedAt)}` : ''} · <code>{d.id}</code>
          </p>
        </div>
        <DeploymentActions
          deployment={d}
          onChanged={(changed) => {
            deployment.setData(changed);
            refreshAll();
          }}
        />
      </div>
      <ErrorBanner error={deployment.error} title="Could not refresh the deployment" />
      {d.status === 'failed' ? (
        <FailureBanner title="The deployment failed" error={d.error}>
          Positions may still be open: stop it to close them.
        </FailureBanner>
      ) : null}
      <DeploymentHaltBanner deployment={d} />
      <PageTabs label="Deployment" tabs={DEPLOYMENT_TABS} selected={tab} onSelect={setTab}>
        {tab === 'drift' ? (
          <DriftTab deploymentId={id} />
        ) : (
          <>
            <LiveOrders live={live} active={d.status === 'starting' || d.status === 'running'} />
            <DeploymentPositions positions={positions.data} error={positions.error} loading={positions.loading} onRefresh={positions.reload} />
            <DeploymentSafety deployment={d} />
            <DeploymentOrders deploymentId={id} refresh={refresh} />
            <DeploymentLogs deploymentId={id} refresh={refresh} />
          </>
        )}
      </PageTabs>
      <p>
        <Link to={{ name: 'deployments' }}>All deployments</Link>
      </p>
    </section>
  );
}

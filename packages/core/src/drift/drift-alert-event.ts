import type { DriftReport } from '@stratbox/contract';
import { recordNotificationEvent } from '../notifications/record-event.js';
import type { DeploymentRecord, StoreRepositories } from '../ports/store.js';

/**
 * `deployment.drift` when a computed report crossed its thresholds (docs/drift.md). The dedupe key
 * is the deployment, the UTC day the window ends and the metrics breached, so the same breach is
 * told once however often the report is computed that day; a new metric breached, or the breach
 * lasting into another day, is told again. Returns the event id, or null when already told or
 * nothing was breached. Carries figures only: no source, no strategy log.
 */
export async function recordDriftAlert(
  tx: Pick<StoreRepositories, 'notificationEvents'>,
  deployment: Pick<DeploymentRecord, 'id' | 'userId'>,
  report: DriftReport,
  at: string,
): Promise<string | null> {
  const { breached } = report.alerts;
  if (breached.length === 0) return null;
  const metrics = [...new Set(breached.map((b) => b.metric))].sort();
  const described = breached.map((b) => `${b.metric} ${round(b.value)} (limit ${round(b.limit)})`).join(', ');
  return recordNotificationEvent(tx, {
    type: 'deployment.drift',
    userId: deployment.userId,
    subject: { kind: 'deployment', id: deployment.id },
    summary: `Deployment ${deployment.id} drifted from its backtest: ${described}`,
    data: { deploymentId: deployment.id, window: { ...report.window }, breached: breached.map((b) => ({ ...b })) },
    time: at,
    dedupeKey: `deployment.drift:${deployment.id}:${report.window.to.slice(0, 10)}:${metrics.join(',')}`,
  });
}

const round = (x: number) => Math.round(x * 1e4) / 1e4;

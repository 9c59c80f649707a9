import type { DeploymentStatus } from '@stratbox/client';

const TONE: Record<DeploymentStatus, string> = {
  starting: 'queued',
  running: 'running',
  halted: 'failed',
  stopping: 'queued',
  stopped: 'cancelled',
  failed: 'failed',
};

/** A deployment's status as a word with a colour (the word carries the meaning). */
export function DeploymentStatusBadge({ status }: { status: DeploymentStatus }) {
  return <span className={`badge badge-${TONE[status]}`}>{status}</span>;
}

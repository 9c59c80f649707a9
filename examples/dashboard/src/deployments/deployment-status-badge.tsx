import type { DeploymentStatus } from '@stratbox/client';
import { type BadgeTone, StatusBadge } from '../ui/status-badge.js';

const TONE: Record<DeploymentStatus, BadgeTone> = {
  starting: 'queued',
  running: 'running',
  halted: 'failed',
  stopping: 'queued',
  stopped: 'cancelled',
  failed: 'failed',
};

/** A deployment's status as a word with a colour (the word carries the meaning). */
export function DeploymentStatusBadge({ status }: { status: DeploymentStatus }) {
  return <StatusBadge status={status} tone={TONE[status]} />;
}

import type { NotificationDelivery } from '@stratbox/client';
import { type BadgeTone, StatusBadge } from '../ui/status-badge.js';

const TONE: Record<NotificationDelivery['status'], BadgeTone> = { pending: 'running', delivered: 'completed', failed: 'failed' };

/** A delivery's status as a word with a colour (the word carries the meaning). */
export function DeliveryStatusBadge({ status }: { status: NotificationDelivery['status'] }) {
  return <StatusBadge status={status} tone={TONE[status]} />;
}

import type { NotificationDelivery } from '@stratbox/client';

const TONE: Record<NotificationDelivery['status'], string> = { pending: 'running', delivered: 'completed', failed: 'failed' };

/** A delivery's status as a word with a colour (the word carries the meaning). */
export function DeliveryStatusBadge({ status }: { status: NotificationDelivery['status'] }) {
  return <span className={`badge badge-${TONE[status]}`}>{status}</span>;
}

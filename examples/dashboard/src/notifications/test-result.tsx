import type { NotificationDelivery } from '@stratbox/client';
import { DeliveryStatusBadge } from './delivery-status-badge.js';

/** How a test send went: its delivery's status, attempts, HTTP status and error. */
export function TestResult({ delivery }: { delivery: NotificationDelivery }) {
  return (
    <p className="test-result small" role="status">
      Test <DeliveryStatusBadge status={delivery.status} /> after {delivery.attempts} attempt(s)
      {delivery.lastStatusCode !== null ? `, HTTP ${delivery.lastStatusCode}` : ''}
      {delivery.lastError ? `: ${delivery.lastError}` : ''}
    </p>
  );
}

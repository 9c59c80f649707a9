import { formatTime } from '../ui/format.js';
import { hasPaidTier, type SubscriptionView, TIER_NAMES } from './plan-labels.js';

const STATUS_NOTES: Partial<Record<SubscriptionView['status'], string>> = {
  past_due: 'The last payment failed; the provider is retrying it. Update your payment method in the billing portal.',
  canceled: 'This subscription was cancelled: the free plan’s limits apply.',
  incomplete: 'The first payment is not complete: the free plan’s limits apply until it is.',
  unpaid: 'This subscription is unpaid: the free plan’s limits apply.',
  paused: 'This subscription is paused: the free plan’s limits apply.',
};

/** The plan, its status and when it renews (or ends). */
export function PlanSummary({ subscription }: { subscription: SubscriptionView }) {
  const note = STATUS_NOTES[subscription.status];
  const renewal = subscription.renewalDate ? formatTime(subscription.renewalDate) : null;
  return (
    <dl className="plan-summary" data-testid="plan-summary">
      <div>
        <dt>Plan</dt>
        <dd className="plan-value plan-tier">{TIER_NAMES[subscription.tier]}</dd>
      </div>
      <div>
        <dt>Status</dt>
        <dd className="plan-value">
          <span className={`badge ${hasPaidTier(subscription) || subscription.tier === 'free' ? 'badge-completed' : 'badge-failed'}`}>
            {subscription.status.replace('_', ' ')}
          </span>
          {note ? <p className="muted small">{note}</p> : null}
        </dd>
      </div>
      <div>
        <dt>{subscription.cancelAtPeriodEnd ? 'Ends' : 'Renews'}</dt>
        <dd className="plan-value">
          {renewal ? `${renewal} UTC` : subscription.tier === 'free' ? 'The free plan does not renew; usage resets each calendar month (UTC).' : '–'}
        </dd>
      </div>
    </dl>
  );
}

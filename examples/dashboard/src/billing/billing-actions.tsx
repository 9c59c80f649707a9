import { useState } from 'react';
import { useClient } from '../session/session-context.js';
import { ErrorBanner } from '../ui/error-banner.js';
import { useAction } from '../ui/use-action.js';
import { hasPaidTier, type PaidTier, type SubscriptionView, TIER_NAMES } from './plan-labels.js';

const PAID: PaidTier[] = ['pro', 'team'];

/** Leaves the dashboard for the payment provider's page (checkout or portal). */
function goTo(url: string): void {
  window.location.assign(url);
}

/**
 * Upgrade (checkout) and "Manage billing" (the provider's customer portal). Both answer an
 * address at the payment provider, which the page goes to; a checkout that the provider
 * completed at once (the embedded local provider does) shows the new plan instead.
 */
export function BillingActions({ subscription, onChanged }: { subscription: SubscriptionView; onChanged(subscription: SubscriptionView): void }) {
  const client = useClient();
  const action = useAction();
  const [note, setNote] = useState<string | null>(null);
  const busy = action.running;

  function run(label: string, work: () => Promise<void>) {
    setNote(null);
    return action.run(work, label);
  }

  const checkout = (tier: PaidTier) =>
    run(tier, async () => {
      const { url } = await client.billing.checkout({ body: { tier } });
      const now = await client.billing.subscription();
      if (now.tier === tier && hasPaidTier(now)) {
        onChanged(now);
        setNote(`You are on the ${TIER_NAMES[tier]} plan now: the payment provider completed the checkout at once.`);
        return;
      }
      goTo(url);
    });
  const portal = () =>
    run('portal', async () => {
      const { url } = await client.billing.portal({ body: {} });
      goTo(url);
    });

  const canUpgrade = !hasPaidTier(subscription);
  return (
    <div className="billing-actions">
      <div className="actions">
        {canUpgrade
          ? PAID.map((tier) => (
              <button key={tier} type="button" className="primary" disabled={busy !== null} onClick={() => checkout(tier)}>
                {busy === tier ? 'Opening checkout…' : `Upgrade to ${TIER_NAMES[tier]}`}
              </button>
            ))
          : null}
        <button type="button" disabled={busy !== null} onClick={portal}>
          {busy === 'portal' ? 'Opening the portal…' : 'Manage billing'}
        </button>
      </div>
      {canUpgrade ? null : <p className="muted small">Change plan, payment method or cancel in the billing portal.</p>}
      <ErrorBanner error={action.error} title="The payment provider could not be reached" />
      {note ? (
        <p className="notice" role="status">
          {note}
        </p>
      ) : null}
    </div>
  );
}

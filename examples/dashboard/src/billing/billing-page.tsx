import { useState } from 'react';
import { useClient } from '../session/session-context.js';
import { ErrorBanner } from '../ui/error-banner.js';
import { Loading } from '../ui/loading.js';
import { useAsync } from '../ui/use-async.js';
import { BillingActions } from './billing-actions.js';
import { InvoiceList } from './invoice-list.js';
import type { SubscriptionView } from './plan-labels.js';
import { PlanSummary } from './plan-summary.js';
import { UsageMeters } from './usage-meters.js';

/** The user's plan and its renewal, this period's usage against the plan's limits, invoices, checkout and the billing portal. */
export function BillingPage() {
  const client = useClient();
  // bumped after a plan change: the invoices load again (the plan and usage update in place)
  const [version, setVersion] = useState(0);
  const subscription = useAsync('billing:subscription', (signal) => client.billing.subscription(undefined, { signal }));
  const usage = useAsync('billing:usage', (signal) => client.billing.usage(undefined, { signal }));
  const changed = (now: SubscriptionView) => {
    subscription.setData(now);
    usage.reload();
    setVersion((v) => v + 1);
  };

  return (
    <section>
      <div className="page-header">
        <h1>Billing</h1>
      </div>
      <section aria-labelledby="plan-title" className="card">
        <h2 id="plan-title">Plan</h2>
        <ErrorBanner error={subscription.error} title="Could not load your subscription" />
        {subscription.data ? (
          <>
            <PlanSummary subscription={subscription.data} />
            <BillingActions subscription={subscription.data} onChanged={changed} />
          </>
        ) : subscription.loading ? (
          <Loading label="Loading your plan…" />
        ) : null}
      </section>
      <section aria-labelledby="usage-title" className="card">
        <h2 id="usage-title">Usage this period</h2>
        <ErrorBanner error={usage.error} title="Could not load your usage" />
        {usage.data ? <UsageMeters usage={usage.data} /> : usage.loading ? <Loading label="Loading your usage…" /> : null}
      </section>
      <section aria-labelledby="invoices-title" className="card">
        <h2 id="invoices-title">Invoices</h2>
        <InvoiceList refreshKey={version} />
      </section>
    </section>
  );
}

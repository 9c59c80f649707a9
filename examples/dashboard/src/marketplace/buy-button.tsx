import { useState } from 'react';
import { useClient } from '../session/session-context.js';
import { ConfirmDialog } from '../ui/confirm-dialog.js';
import { ErrorBanner } from '../ui/error-banner.js';
import { useAction } from '../ui/use-action.js';
import type { Listing, Purchase } from './listing.js';
import { formatPrice } from './listing-values.js';

/**
 * Buys a run-only licence, asked first. The example server's local billing provider completes a
 * purchase at once; a real provider answers `pending` with where to pay, shown as a link.
 */
export function BuyButton({ listing, onBought }: { listing: Listing; onBought(purchase: Purchase): void }) {
  const client = useClient();
  const [asking, setAsking] = useState(false);
  const purchase = useAction();
  const [pending, setPending] = useState<Purchase | null>(null);

  async function buy() {
    await purchase.run(async () => {
      const bought = await client.marketplace.purchase({ params: { id: listing.id }, body: {} });
      if (bought.status === 'pending') setPending(bought);
      else onBought(bought);
    });
    setAsking(false);
  }

  const price = formatPrice(listing.price);
  return (
    <div className="buy">
      <button type="button" className="primary" onClick={() => setAsking(true)} disabled={pending !== null}>
        {listing.price === 0 ? 'Get it free' : `Buy for ${price}`}
      </button>
      {pending?.checkoutUrl ? (
        <p role="status">
          The payment is waiting: <a href={pending.checkoutUrl}>complete it with the payment provider</a>, then come back.
        </p>
      ) : null}
      <ErrorBanner error={purchase.error} title="The purchase did not go through" />
      <ConfirmDialog
        open={asking}
        title={`Buy ${listing.name}?`}
        confirmLabel={listing.price === 0 ? 'Get it' : `Pay ${price}`}
        busy={purchase.busy}
        onConfirm={buy}
        onCancel={() => setAsking(false)}
      >
        <p>
          A run-only licence of version {listing.strategyVersion}: backtest it and deploy it as often as you like. Its source stays the seller’s: you never see
          it.
        </p>
      </ConfirmDialog>
    </div>
  );
}

/** The user's plan, usage and invoices. */
export function BillingPage() {
  return <h1>Billing</h1>;
}

import type { RouteOutput } from '@stratbox/client';
import { useClient } from '../session/session-context.js';
import { EmptyState } from '../ui/empty-state.js';
import { formatTime } from '../ui/format.js';
import { PagedListView } from '../ui/paged-list-view.js';
import { usePagedList } from '../ui/use-paged-list.js';
import { formatMinorAmount } from './billing-format.js';

type Invoice = RouteOutput<'billing.invoices'>['invoices'][number];

/** The user's invoices, newest first, with the provider's page and PDF of each. */
export function InvoiceList({ refreshKey }: { refreshKey: number }) {
  const client = useClient();
  const list = usePagedList<Invoice>(`invoices:${refreshKey}`, async (cursor, signal) => {
    const page = await client.billing.invoices({ query: { limit: 20, ...(cursor ? { cursor } : {}) } }, { signal });
    return { items: page.invoices, nextCursor: page.nextCursor };
  });
  return (
    <PagedListView
      list={list}
      errorTitle="Could not load your invoices"
      loadingLabel="Loading invoices…"
      empty={<EmptyState title="No invoices yet">A paid plan’s invoices appear here.</EmptyState>}
    >
      <div className="table-wrap">
        <table className="invoice-table">
          <thead>
            <tr>
              <th scope="col">Invoice</th>
              <th scope="col">Date</th>
              <th scope="col">Status</th>
              <th scope="col" className="numeric">
                Amount due
              </th>
              <th scope="col" className="numeric">
                Paid
              </th>
              <th scope="col">Documents</th>
            </tr>
          </thead>
          <tbody>
            {list.items.map((invoice) => (
              <tr key={invoice.id}>
                <th scope="row">{invoice.number ?? invoice.id}</th>
                <td>{formatTime(invoice.createdAt)}</td>
                <td>{invoice.status}</td>
                <td className="numeric">{formatMinorAmount(invoice.amountDue, invoice.currency)}</td>
                <td className="numeric">{formatMinorAmount(invoice.amountPaid, invoice.currency)}</td>
                <td className="invoice-links">
                  {invoice.hostedUrl ? (
                    <a href={invoice.hostedUrl} target="_blank" rel="noreferrer">
                      View<span className="visually-hidden"> invoice {invoice.number ?? invoice.id}</span>
                    </a>
                  ) : null}
                  {invoice.pdfUrl ? (
                    <a href={invoice.pdfUrl} target="_blank" rel="noreferrer">
                      PDF<span className="visually-hidden"> of invoice {invoice.number ?? invoice.id}</span>
                    </a>
                  ) : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </PagedListView>
  );
}

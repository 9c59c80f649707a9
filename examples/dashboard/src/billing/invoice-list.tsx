import type { RouteOutput } from '@stratbox/client';
import { useClient } from '../session/session-context.js';
import { EmptyState } from '../ui/empty-state.js';
import { formatTime } from '../ui/format.js';
import { PagedTable } from '../ui/paged-table.js';
import { usePagedList } from '../ui/use-paged-list.js';
import { formatMinorAmount } from './billing-format.js';

type Invoice = RouteOutput<'billing.invoices'>['invoices'][number];

/** An invoice's pages at the provider: the hosted one and the PDF. */
function InvoiceLinks({ invoice }: { invoice: Invoice }) {
  return (
    <>
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
    </>
  );
}

/** The user's invoices, newest first, with the provider's page and PDF of each. */
export function InvoiceList({ refreshKey }: { refreshKey: number }) {
  const client = useClient();
  const list = usePagedList(
    `invoices:${refreshKey}`,
    (at, signal) => client.billing.invoices({ query: { limit: 20, ...at } }, { signal }),
    (page) => page.invoices,
  );
  return (
    <PagedTable
      list={list}
      errorTitle="Could not load your invoices"
      loadingLabel="Loading invoices…"
      empty={<EmptyState title="No invoices yet">A paid plan’s invoices appear here.</EmptyState>}
      className="invoice-table"
      rowKey={(invoice) => invoice.id}
      columns={[
        { key: 'invoice', header: 'Invoice', cell: (invoice) => invoice.number ?? invoice.id },
        { key: 'date', header: 'Date', cell: (invoice) => formatTime(invoice.createdAt) },
        { key: 'status', header: 'Status', cell: (invoice) => invoice.status },
        { key: 'due', header: 'Amount due', numeric: true, cell: (invoice) => formatMinorAmount(invoice.amountDue, invoice.currency) },
        { key: 'paid', header: 'Paid', numeric: true, cell: (invoice) => formatMinorAmount(invoice.amountPaid, invoice.currency) },
        { key: 'documents', header: 'Documents', cellClass: 'invoice-links', cell: (invoice) => <InvoiceLinks invoice={invoice} /> },
      ]}
    />
  );
}

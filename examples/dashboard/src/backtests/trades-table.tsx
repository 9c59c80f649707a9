import type { Trade } from './trade.js';
import { useMemo, useState } from 'react';
import { EmptyState } from '../ui/empty-state.js';
import { formatMoney, formatPrice, formatTime } from '../ui/format.js';
import { type TradeColumn, type TradeSort, sortTrades } from './sort-trades.js';

const COLUMNS: Array<{ key: TradeColumn; label: string; numeric?: boolean }> = [
  { key: 'symbol', label: 'Symbol' },
  { key: 'side', label: 'Side' },
  { key: 'entryTime', label: 'Entry' },
  { key: 'entryPrice', label: 'Entry price', numeric: true },
  { key: 'exitTime', label: 'Exit' },
  { key: 'exitPrice', label: 'Exit price', numeric: true },
  { key: 'quantity', label: 'Quantity', numeric: true },
  { key: 'pnl', label: 'P&L', numeric: true },
  { key: 'fees', label: 'Fees', numeric: true },
  { key: 'funding', label: 'Funding', numeric: true },
  { key: 'exitReason', label: 'Exit reason' },
];
const PAGE_SIZE = 25;

function cell(trade: Trade, key: TradeColumn): string {
  switch (key) {
    case 'entryTime':
    case 'exitTime':
      return formatTime(trade[key]);
    case 'entryPrice':
    case 'exitPrice':
    case 'quantity':
      return formatPrice(trade[key]);
    case 'pnl':
    case 'fees':
    case 'funding':
      return formatMoney(trade[key]);
    default:
      return trade[key] ?? '';
  }
}

/** A run's trades: sorted by any column (click its header again to reverse), 25 a page. */
export function TradesTable({ trades, loading }: { trades: Trade[]; loading: boolean }) {
  const [sort, setSort] = useState<TradeSort>({ column: 'entryTime', direction: 'ascending' });
  const [page, setPage] = useState(0);
  const sorted = useMemo(() => sortTrades(trades, sort), [trades, sort]);
  const pages = Math.max(1, Math.ceil(sorted.length / PAGE_SIZE));
  const current = Math.min(page, pages - 1);
  const rows = sorted.slice(current * PAGE_SIZE, (current + 1) * PAGE_SIZE);

  if (trades.length === 0 && !loading) return <EmptyState title="No trades">The strategy opened no position over this run.</EmptyState>;
  const sortBy = (column: TradeColumn) => {
    setSort((s) => ({ column, direction: s.column === column && s.direction === 'ascending' ? 'descending' : 'ascending' }));
    setPage(0);
  };
  return (
    <div className="trades">
      <div className="table-wrap">
        <table className="trades-table">
          <caption className="visually-hidden">Trades, sorted by {COLUMNS.find((c) => c.key === sort.column)?.label}</caption>
          <thead>
            <tr>
              {COLUMNS.map((c) => (
                <th key={c.key} scope="col" aria-sort={sort.column === c.key ? sort.direction : 'none'} className={c.numeric ? 'numeric' : undefined}>
                  <button type="button" className="sort-button" onClick={() => sortBy(c.key)}>
                    {c.label}
                    <span aria-hidden="true">{sort.column === c.key ? (sort.direction === 'ascending' ? ' ▲' : ' ▼') : ''}</span>
                  </button>
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map((trade, index) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: a page's rows are its positions in the sorted list
              <tr key={current * PAGE_SIZE + index}>
                {COLUMNS.map((c) => (
                  <td
                    key={c.key}
                    className={[c.numeric ? 'numeric' : '', c.key === 'pnl' ? (trade.pnl >= 0 ? 'gain' : 'loss') : ''].join(' ').trim() || undefined}
                  >
                    {cell(trade, c.key)}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <nav className="pager" aria-label="Trade pages">
        <button type="button" onClick={() => setPage(current - 1)} disabled={current === 0}>
          Previous
        </button>
        <span>
          Page {current + 1} of {pages} · {trades.length.toLocaleString('en')} trades{loading ? ' (loading more…)' : ''}
        </span>
        <button type="button" onClick={() => setPage(current + 1)} disabled={current >= pages - 1}>
          Next
        </button>
      </nav>
    </div>
  );
}

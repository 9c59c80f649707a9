import type { DriftReport } from '@stratbox/client';
import { useState } from 'react';
import { formatPrice, formatTime } from '../ui/format.js';
import { DriftCards } from './drift-cards.js';
import { formatBps, formatOffset } from './drift-format.js';

type Trades = DriftReport['trades'];
type Kind = Trades['list'][number]['kind'];

const KIND_LABELS: Record<Kind, string> = { matched: 'matched', missed: 'missed (backtest only)', extra: 'extra (live only)' };
const FILTERS: Array<{ value: Kind | 'all'; label: string }> = [
  { value: 'all', label: 'All trades' },
  { value: 'matched', label: 'Matched' },
  { value: 'missed', label: 'Missed' },
  { value: 'extra', label: 'Extra' },
];

/** The trades of both runs, paired: matched (both made it), missed (only the backtest) and extra (only the live run), with each pair's timing offset and slippage. */
export function DriftTrades({ trades }: { trades: Trades }) {
  const [filter, setFilter] = useState<Kind | 'all'>('all');
  const rows = filter === 'all' ? trades.list : trades.list.filter((t) => t.kind === filter);
  const total = trades.matched + trades.missed + trades.extra;
  return (
    <section aria-labelledby="drift-trades-title" className="drift-section">
      <h3 id="drift-trades-title">Trades</h3>
      <DriftCards
        label="Trades"
        cards={[
          { label: 'Matched', value: trades.matched.toLocaleString('en') },
          { label: 'Missed', value: trades.missed.toLocaleString('en'), tone: trades.missed > 0 ? 'loss' : undefined, hint: 'In the backtest, not live' },
          { label: 'Extra', value: trades.extra.toLocaleString('en'), tone: trades.extra > 0 ? 'loss' : undefined, hint: 'Live, not in the backtest' },
          { label: 'Mean timing offset', value: formatOffset(trades.meanOffsetMs), hint: 'Live fill minus backtest fill' },
        ]}
      />
      {trades.list.length === 0 ? (
        <p className="muted">Neither run made a trade in this window.</p>
      ) : (
        <>
          <div className="field drift-trades-filter">
            <label htmlFor="drift-trades-filter">Show</label>
            <select id="drift-trades-filter" value={filter} onChange={(e) => setFilter(e.target.value as Kind | 'all')}>
              {FILTERS.map((f) => (
                <option key={f.value} value={f.value}>
                  {f.label}
                </option>
              ))}
            </select>
          </div>
          <div className="table-wrap drift-trades-wrap">
            <table className="drift-trades" data-testid="drift-trades">
              <caption className="visually-hidden">Trades of the backtest and the live run, paired</caption>
              <thead>
                <tr>
                  <th scope="col">Kind</th>
                  <th scope="col">Symbol</th>
                  <th scope="col">Side</th>
                  <th scope="col">Backtest fill</th>
                  <th scope="col" className="numeric">
                    Backtest price
                  </th>
                  <th scope="col">Live fill</th>
                  <th scope="col" className="numeric">
                    Live price
                  </th>
                  <th scope="col" className="numeric">
                    Quantity
                  </th>
                  <th scope="col" className="numeric">
                    Offset
                  </th>
                  <th scope="col" className="numeric">
                    Slippage
                  </th>
                  <th scope="col" className="numeric">
                    Fees (live / backtest)
                  </th>
                </tr>
              </thead>
              <tbody>
                {rows.map((trade, index) => (
                  // trades have no id of their own: the list's order (oldest first) is stable for a report
                  // biome-ignore lint/suspicious/noArrayIndexKey: see above
                  <tr key={index} className={`drift-trade-${trade.kind}`} data-kind={trade.kind}>
                    <td>
                      <span className={`badge badge-drift-${trade.kind}`}>{KIND_LABELS[trade.kind]}</span>
                    </td>
                    <td>{trade.symbol}</td>
                    <td>{trade.side}</td>
                    <td>{formatTime(trade.replay?.time)}</td>
                    <td className="numeric">{trade.replay ? formatPrice(trade.replay.price) : '–'}</td>
                    <td>{formatTime(trade.live?.time)}</td>
                    <td className="numeric">{trade.live ? formatPrice(trade.live.price) : '–'}</td>
                    <td className="numeric">{formatPrice((trade.live ?? trade.replay)?.quantity ?? 0)}</td>
                    <td className="numeric">{formatOffset(trade.offsetMs)}</td>
                    <td className="numeric">{formatBps(trade.slippageBps)}</td>
                    <td className="numeric">
                      {trade.live ? formatPrice(trade.live.fee) : '–'} / {trade.replay ? formatPrice(trade.replay.fee) : '–'}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <p className="muted small">
            {rows.length.toLocaleString('en')} shown of {total.toLocaleString('en')} trades
            {trades.list.length < total ? ` (the report lists the oldest ${trades.list.length.toLocaleString('en')})` : ''}.
          </p>
        </>
      )}
    </section>
  );
}

import type { DeploymentPositions as Positions } from '@stratbox/client';
import { EmptyState } from '../ui/empty-state.js';
import type { ErrorView } from '../ui/describe-error.js';
import { ErrorBanner } from '../ui/error-banner.js';
import { formatMoney, formatPrice, formatTime } from '../ui/format.js';
import { Loading } from '../ui/loading.js';

/** Cents and above: a P&L that rounds to 0.00 is shown as 0.00, not -0.00, and is neither gain nor loss. */
const cents = (value: number | null) => (value !== null && Math.abs(value) < 0.005 ? 0 : value);
const tone = (value: number | null) => {
  const v = cents(value);
  return v === null || v === 0 ? undefined : v > 0 ? 'gain' : 'loss';
};
const money = (value: number | null) => formatMoney(cents(value));
const price = (value: number | null) => (value === null ? '–' : formatPrice(value));

interface DeploymentPositionsProps {
  positions: Positions | undefined;
  error: ErrorView | null;
  loading: boolean;
  onRefresh(): void;
}

/** Open positions of the deployment's symbols and its P&L: realized (its own fills, net of fees) and unrealized. */
export function DeploymentPositions({ positions, error, loading, onRefresh }: DeploymentPositionsProps) {
  return (
    <section aria-labelledby="positions-title">
      <div className="page-header">
        <h2 id="positions-title">Positions and P&amp;L</h2>
        <button type="button" onClick={onRefresh} disabled={loading}>
          {loading ? 'Refreshing…' : 'Refresh'}
        </button>
      </div>
      <ErrorBanner error={error} title="Could not read the positions" />
      {!positions && loading ? <Loading label="Reading the positions…" /> : null}
      {positions ? (
        <>
          <dl className="metric-cards">
            <div className={`metric-card ${tone(positions.realizedPnl) ?? ''}`.trim()}>
              <dt>Realized P&amp;L</dt>
              <dd>{money(positions.realizedPnl)}</dd>
            </div>
            <div className={`metric-card ${tone(positions.unrealizedPnl) ?? ''}`.trim()}>
              <dt>Unrealized P&amp;L</dt>
              <dd>{money(positions.unrealizedPnl)}</dd>
            </div>
            <div className="metric-card">
              <dt>Fees paid</dt>
              <dd>{formatMoney(positions.fees)}</dd>
            </div>
            <div className="metric-card">
              <dt>Open positions</dt>
              <dd>{positions.positions.length}</dd>
            </div>
          </dl>
          <p className="muted small">
            As of {formatTime(positions.asOf)}
            {positions.live ? ', read from the exchange now.' : ': the deployment is stopped, its stop closed its positions.'}
          </p>
          {positions.positions.length === 0 ? (
            <EmptyState title="No open position">{positions.live ? 'The strategy holds nothing in its symbols right now.' : null}</EmptyState>
          ) : (
            <div className="table-wrap">
              <table>
                <caption className="visually-hidden">Open positions</caption>
                <thead>
                  <tr>
                    <th scope="col">Symbol</th>
                    <th scope="col">Side</th>
                    <th scope="col" className="numeric">
                      Quantity
                    </th>
                    <th scope="col" className="numeric">
                      Entry price
                    </th>
                    <th scope="col" className="numeric">
                      Mark price
                    </th>
                    <th scope="col" className="numeric">
                      Unrealized P&amp;L
                    </th>
                    <th scope="col" className="numeric">
                      Liquidation
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {positions.positions.map((p) => (
                    <tr key={p.symbol}>
                      <th scope="row">{p.symbol}</th>
                      <td>{p.side}</td>
                      <td className="numeric">{formatPrice(p.quantity)}</td>
                      <td className="numeric">{price(p.entryPrice)}</td>
                      <td className="numeric">{price(p.markPrice)}</td>
                      <td className={['numeric', tone(p.unrealizedPnl)].filter(Boolean).join(' ')}>{money(p.unrealizedPnl)}</td>
                      <td className="numeric">{price(p.liquidationPrice)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
          <div className="table-wrap">
            <table>
              <caption>Realized by symbol</caption>
              <thead>
                <tr>
                  <th scope="col">Symbol</th>
                  <th scope="col" className="numeric">
                    Realized P&amp;L
                  </th>
                  <th scope="col" className="numeric">
                    Fees
                  </th>
                  <th scope="col" className="numeric">
                    Filled orders
                  </th>
                </tr>
              </thead>
              <tbody>
                {positions.bySymbol.map((s) => (
                  <tr key={s.symbol}>
                    <th scope="row">{s.symbol}</th>
                    <td className={['numeric', tone(s.realizedPnl)].filter(Boolean).join(' ')}>{money(s.realizedPnl)}</td>
                    <td className="numeric">{formatMoney(s.fees)}</td>
                    <td className="numeric">{s.filledOrders}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      ) : null}
    </section>
  );
}

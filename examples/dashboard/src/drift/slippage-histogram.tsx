import type { DriftReport } from '@stratbox/client';
import { formatBps } from './drift-format.js';

type Slippage = DriftReport['costs']['slippage'];

/** How many matched fills fell in each slippage bin, as bars; the bin that holds the model's slippage is marked. */
export function SlippageHistogram({ slippage }: { slippage: Slippage }) {
  const bins = slippage.histogram;
  if (bins.length === 0) return <p className="muted">No slippage to draw: no live fill matched a backtest fill.</p>;
  const most = Math.max(1, ...bins.map((b) => b.count));
  const holdsModel = (bin: Slippage['histogram'][number]) => slippage.modelBps >= bin.fromBps && slippage.modelBps < bin.toBps;
  return (
    <figure className="drift-histogram-figure">
      <div className="table-wrap">
        <table className="sensitivity-bars drift-histogram" data-testid="slippage-histogram">
          <caption className="visually-hidden">Slippage of the matched live fills against the backtest, in basis points</caption>
          <thead>
            <tr>
              <th scope="col">Slippage</th>
              <th scope="col">Fills</th>
            </tr>
          </thead>
          <tbody>
            {bins.map((bin) => (
              <tr key={`${bin.fromBps}:${bin.toBps}`} className={holdsModel(bin) ? 'histogram-model' : undefined}>
                <th scope="row">
                  {bin.fromBps} to {bin.toBps} bps{holdsModel(bin) ? ' (model)' : ''}
                </th>
                <td className="bar-cell">
                  <span className="bar" style={{ width: `${Math.round((bin.count / most) * 70)}%` }} />
                  <span className="bar-value">{bin.count.toLocaleString('en')}</span>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <figcaption className="muted small">
        {slippage.count.toLocaleString('en')} matched fills; positive is worse for the account. The model's slippage is {formatBps(slippage.modelBps)}.
      </figcaption>
    </figure>
  );
}

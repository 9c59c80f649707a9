import type { DriftReport } from '@stratbox/client';
import { amountDigits, formatAmount } from './drift-format.js';
import { barBox, waterfallSteps } from './waterfall-steps.js';

/**
 * The P&L waterfall as a chart of floating bars: the backtest's P&L, each part that moves it
 * (green up, red down) and the live P&L it ends at. A table, so every bar's name and amount are
 * text a screen reader reads in order; the bars are drawn beside them.
 */
export function DriftWaterfall({ waterfall }: { waterfall: DriftReport['waterfall'] }) {
  const { steps, min, max } = waterfallSteps(waterfall);
  const zero = barBox({ from: 0, to: 0 }, min, max).left;
  // a paper run's P&L may be fractions of a cent: its amounts get the decimals that show them
  const digits = amountDigits(Math.max(...steps.flatMap((s) => [Math.abs(s.value), Math.abs(s.to)])));
  return (
    <section aria-labelledby="drift-waterfall-title" className="drift-section">
      <h3 id="drift-waterfall-title">P&amp;L waterfall</h3>
      <p className="muted small">From the backtest's P&amp;L to the live P&amp;L: the parts sum to the difference.</p>
      <div className="table-wrap">
        <table className="drift-waterfall" data-testid="drift-waterfall">
          <caption className="visually-hidden">P&amp;L waterfall from the backtest to the live run</caption>
          <thead>
            <tr>
              <th scope="col">Step</th>
              <th scope="col" className="numeric">
                Amount
              </th>
              <th scope="col">
                <span className="visually-hidden">Bar</span>
              </th>
              <th scope="col" className="numeric">
                Running P&amp;L
              </th>
            </tr>
          </thead>
          <tbody>
            {steps.map((step) => {
              const box = barBox(step, min, max);
              return (
                <tr key={step.key} className={`waterfall-${step.kind}`}>
                  <th scope="row">{step.label}</th>
                  <td className={`numeric ${step.kind === 'gain' ? 'gain' : step.kind === 'loss' ? 'loss' : ''}`.trim()}>
                    {formatAmount(step.value, { digits, signed: step.kind !== 'total' })}
                  </td>
                  <td className="waterfall-track" aria-hidden="true">
                    <span className="waterfall-zero" style={{ left: `${zero}%` }} />
                    <span className={`waterfall-bar waterfall-bar-${step.kind}`} style={{ left: `${box.left}%`, width: `max(${box.width}%, 2px)` }} />
                  </td>
                  <td className="numeric">{formatAmount(step.to, { digits })}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
    </section>
  );
}

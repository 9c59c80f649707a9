import type { BacktestDetail } from '@stratbox/client';
import { METRIC_CARDS } from '../ui/metric-cards.js';
import { BETTER, betterOf, METRIC_NUMBERS } from './compare-data.js';

type Metrics = NonNullable<BacktestDetail['metrics']>;

/** The two runs' metrics side by side, the better value of each score in bold. */
export function CompareMetrics({ a, b }: { a: Metrics; b: Metrics }) {
  return (
    <div className="table-wrap">
      <table className="compare-metrics">
        <caption className="visually-hidden">Metrics of run A and run B</caption>
        <thead>
          <tr>
            <th scope="col">Metric</th>
            <th scope="col" className="numeric">
              A
            </th>
            <th scope="col" className="numeric">
              B
            </th>
          </tr>
        </thead>
        <tbody>
          {METRIC_CARDS.map((card) => {
            const number = METRIC_NUMBERS[card.label];
            const winner = number ? betterOf(number(a), number(b), BETTER[card.label] ?? 'none') : null;
            const cell = (which: 'a' | 'b', metrics: Metrics) => (
              <td className={`numeric ${winner === which ? 'better' : ''}`.trim()} data-better={winner === which ? 'true' : undefined}>
                {card.value(metrics)}
                {winner === which ? <span className="visually-hidden"> (better)</span> : null}
              </td>
            );
            return (
              <tr key={card.label}>
                <th scope="row">{card.label}</th>
                {cell('a', a)}
                {cell('b', b)}
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

import type { OptimizationDetail } from '@stratbox/client';
import { useState } from 'react';
import { formatNumber } from '../ui/format.js';
import { colourAt, heatmap, type PairSensitivity, type ParamSensitivity, sensitivityBars } from './heatmap.js';
import { objectiveLabel } from './optimization-form-values.js';

/**
 * The best objective at each pair of values, as a table of coloured cells (dark: lowest, yellow:
 * highest); the numbers are written in the cells, so the table is its own text alternative.
 */
function Heatmap({ pair, objective }: { pair: PairSensitivity; objective: string }) {
  const map = heatmap(pair);
  const [xName, yName] = pair.params;
  const legend = map.min !== null && map.max !== null ? [colourAt(map.min, map.min, map.max), colourAt(map.max, map.min, map.max)] : null;
  return (
    <figure className="heatmap-figure">
      <div className="table-wrap">
        <table className="heatmap" data-testid="heatmap" data-cells={map.rows.flat().length}>
          <caption>
            Best {objective} by {xName} (columns) and {yName} (rows); – where no trial was feasible; ★ the highest
          </caption>
          <thead>
            <tr>
              <th scope="col">
                {yName} \ {xName}
              </th>
              {map.xs.map((x) => (
                <th key={x} scope="col" className="numeric">
                  {x}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {map.rows.map((row, j) => (
              <tr key={map.ys[j]}>
                <th scope="row">{map.ys[j]}</th>
                {row.map((cell) => (
                  <td
                    key={cell.x}
                    className={`heat-cell numeric${cell.best ? ' heat-best' : ''}`}
                    style={{ background: cell.fill, color: cell.text }}
                    title={`${xName}=${cell.x}, ${yName}=${cell.y}: ${formatNumber(cell.value)}`}
                  >
                    {cell.best ? '★ ' : ''}
                    {formatNumber(cell.value)}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {legend ? (
        <figcaption className="heatmap-legend">
          <span>{formatNumber(map.min)}</span>
          <span
            className="heatmap-scale"
            style={{ background: `linear-gradient(to right, ${legend[0]!.fill}, #21918c, ${legend[1]!.fill})` }}
            aria-hidden="true"
          />
          <span>{formatNumber(map.max)}</span>
        </figcaption>
      ) : null}
    </figure>
  );
}

/** The best (and mean) objective at each value of one parameter, as bars from zero. */
function Bars({ param, objective }: { param: ParamSensitivity; objective: string }) {
  const bars = sensitivityBars(param);
  return (
    <div className="table-wrap">
      <table className="sensitivity-bars" data-testid="sensitivity-bars">
        <caption>
          Best {objective} at each value of {param.param}
        </caption>
        <thead>
          <tr>
            <th scope="col">{param.param}</th>
            <th scope="col">Best</th>
            <th scope="col" className="numeric">
              Mean
            </th>
            <th scope="col" className="numeric">
              Trials
            </th>
          </tr>
        </thead>
        <tbody>
          {bars.map((bar) => (
            <tr key={bar.value}>
              <th scope="row">{bar.value}</th>
              <td className="bar-cell">
                <span className={`bar ${bar.best !== null && bar.best < 0 ? 'bar-negative' : ''}`} style={{ width: `${Math.round(bar.length * 70)}%` }} />
                <span className="bar-value">{formatNumber(bar.best)}</span>
              </td>
              <td className="numeric">{formatNumber(bar.mean)}</td>
              <td className="numeric">{bar.trials}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** Sensitivity around the winner: a heatmap per pair of searched parameters (one at a time), or bars for a single one. */
export function SensitivityView({ optimization }: { optimization: OptimizationDetail }) {
  const [pairIndex, setPairIndex] = useState(0);
  const sensitivity = optimization.results?.sensitivity;
  if (!sensitivity) return null;
  const objective = objectiveLabel(optimization.objective);
  const pairs = sensitivity.pairs;
  const pair = pairs[Math.min(pairIndex, pairs.length - 1)];
  return (
    <section aria-labelledby="sensitivity-title">
      <h2 id="sensitivity-title">Sensitivity</h2>
      <p className="muted">A winner among good neighbours is more likely to hold up than a lone peak.</p>
      {pairs.length > 1 ? (
        <div className="field">
          <label htmlFor="sensitivity-pair">Parameters</label>
          <select id="sensitivity-pair" value={pairIndex} onChange={(e) => setPairIndex(Number(e.target.value))}>
            {pairs.map((p, i) => (
              <option key={p.params.join('/')} value={i}>
                {p.params[0]} and {p.params[1]}
              </option>
            ))}
          </select>
        </div>
      ) : null}
      {pair ? <Heatmap pair={pair} objective={objective} /> : null}
      {!pair && sensitivity.params[0] ? <Bars param={sensitivity.params[0]} objective={objective} /> : null}
      {!pair && !sensitivity.params[0] ? <p className="muted">No sensitivity: no trial was feasible.</p> : null}
    </section>
  );
}

import type { RouteOutput } from '@stratbox/client';
import { formatCpuSeconds, usageFraction, usageLevel } from './billing-format.js';

type Usage = RouteOutput<'billing.usage'>;

const METERS: Array<{ key: keyof Usage; label: string; help: string; amount(n: number): string }> = [
  { key: 'compute', label: 'Compute', help: 'CPU time of your strategies (backtests and deployments) this period', amount: formatCpuSeconds },
  { key: 'backtests', label: 'Backtests', help: 'Backtests started this period', amount: (n) => n.toLocaleString('en') },
  { key: 'deployments', label: 'Live deployments', help: 'Deployments running now', amount: (n) => n.toLocaleString('en') },
];

const LEVEL_WORDS = { ok: '', high: ' (nearly used up)', over: ' (limit reached)' } as const;

/** One meter per plan counter: how much of the period's allowance is used. */
export function UsageMeters({ usage }: { usage: Usage }) {
  return (
    <ul className="usage-meters">
      {METERS.map(({ key, label, help, amount }) => {
        const { used, limit } = usage[key];
        const level = usageLevel(used, limit);
        const percent = Math.round(usageFraction(used, limit) * 100);
        const text = `${amount(used)} of ${amount(limit)}${LEVEL_WORDS[level]}`;
        return (
          <li key={key} className={`usage-meter usage-${level}`} data-testid={`usage-${key}`}>
            <div className="usage-head">
              <span id={`usage-${key}-label`} className="usage-label">
                {label}
              </span>
              <span className="usage-text">{text}</span>
            </div>
            <meter
              className="usage-track"
              aria-labelledby={`usage-${key}-label`}
              aria-describedby={`usage-${key}-help`}
              min={0}
              max={Math.max(limit, 1)}
              low={Math.max(limit, 1) * 0.8}
              high={Math.max(limit, 1) * 0.999}
              optimum={0}
              value={Math.min(used, Math.max(limit, 1))}
            >
              {percent}%
            </meter>
            <p id={`usage-${key}-help`} className="muted small">
              {help}
            </p>
          </li>
        );
      })}
    </ul>
  );
}

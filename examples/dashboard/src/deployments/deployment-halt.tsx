import type { Deployment, DeploymentHalt } from '@stratbox/client';
import { formatMoney, formatNumber, formatPercent, formatTime } from '../ui/format.js';

const LIMIT_NAMES: Record<DeploymentHalt['reason'], string> = {
  maxDrawdown: 'Max drawdown',
  dailyLossLimit: 'Daily loss limit',
  maxPositionNotional: 'Max position notional',
  maxOrdersPerMinute: 'Max orders per minute',
  positionMismatch: 'Position check',
};

/** A halt figure in its limit's unit: a fraction as a percentage, a notional as money, a count as a number. */
export function formatHaltFigure(reason: DeploymentHalt['reason'], value: number | null): string {
  if (value === null) return '–';
  if (reason === 'maxDrawdown' || reason === 'dailyLossLimit') return formatPercent(value);
  if (reason === 'maxPositionNotional') return formatMoney(value);
  return formatNumber(value);
}

/** Why a halted deployment was halted: which limit, the figures and when, and what its owner can do. */
export function DeploymentHaltBanner({ deployment }: { deployment: Deployment }) {
  if (deployment.status !== 'halted') return null;
  const halt = deployment.halt;
  return (
    <div className="error-banner halt-banner" role="alert">
      <p className="error-title">The deployment is halted{halt ? `: ${LIMIT_NAMES[halt.reason]}` : ''}</p>
      {halt ? (
        <>
          <p>{halt.message}</p>
          <dl className="halt-figures">
            <div>
              <dt className="halt-figure-label">Measured</dt>
              <dd className="halt-figure-value">{formatHaltFigure(halt.reason, halt.value)}</dd>
            </div>
            <div>
              <dt className="halt-figure-label">Limit</dt>
              <dd className="halt-figure-value">{formatHaltFigure(halt.reason, halt.limit)}</dd>
            </div>
            <div>
              <dt className="halt-figure-label">Halted at</dt>
              <dd className="halt-figure-value">
                <time dateTime={halt.at}>{formatTime(halt.at)}</time>
              </dd>
            </div>
          </dl>
        </>
      ) : null}
      <p>It sends no orders until you restart it (its limits stay; the halt is cleared) or stop it (its orders are cancelled and positions closed).</p>
    </div>
  );
}

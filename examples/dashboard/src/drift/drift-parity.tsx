import type { DriftReport } from '@stratbox/client';
import { formatTime } from '../ui/format.js';
import { DriftCards } from './drift-cards.js';
import { CAUSE_LABELS, formatShare } from './drift-format.js';

/** Decision parity: the share of the live intents the replay made too at the same candle, and the first divergence if any. */
export function DriftParity({ parity }: { parity: DriftReport['parity'] }) {
  const divergence = parity.firstDivergence;
  return (
    <section aria-labelledby="drift-parity-title" className="drift-section">
      <h3 id="drift-parity-title">Decision parity</h3>
      <DriftCards
        label="Decision parity"
        cards={[
          {
            label: 'Parity',
            value: formatShare(parity.share),
            tone: parity.share === null ? undefined : parity.share >= 1 ? 'gain' : 'loss',
            hint: 'Live intents the backtest made too, at the same candle',
          },
          { label: 'Live intents', value: parity.liveIntents.toLocaleString('en') },
          { label: 'Matched', value: parity.matched.toLocaleString('en') },
        ]}
      />
      {divergence ? (
        <div className="drift-divergence" data-testid="first-divergence">
          <p className="error-title">First divergence</p>
          <dl className="drift-facts">
            <div>
              <dt className="drift-fact-label">Candle</dt>
              <dd className="drift-fact-value">{formatTime(divergence.time)}</dd>
            </div>
            <div>
              <dt className="drift-fact-label">Symbol</dt>
              <dd className="drift-fact-value">{divergence.symbol}</dd>
            </div>
            <div>
              <dt className="drift-fact-label">Likely cause</dt>
              <dd className="drift-fact-value">{CAUSE_LABELS[divergence.cause]}</dd>
            </div>
          </dl>
          <p>{divergence.detail}</p>
        </div>
      ) : (
        <p className="muted">
          {parity.share === null
            ? 'The live run made no order intent yet.'
            : 'No divergence: the backtest made every intent the live run made, at the same candle.'}
        </p>
      )}
    </section>
  );
}

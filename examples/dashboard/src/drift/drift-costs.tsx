import type { DriftReport } from '@stratbox/client';
import { formatMoney } from '../ui/format.js';
import { DriftCards, signTone } from './drift-cards.js';
import { formatBps } from './drift-format.js';
import { SlippageHistogram } from './slippage-histogram.js';

/** Costs: slippage of the live fills against the backtest's (mean, p50, p95, beside the model's), the fee gap and the funding gap. */
export function DriftCosts({ costs }: { costs: DriftReport['costs'] }) {
  const { slippage, fees, funding } = costs;
  // a cost gap is live minus backtest: more paid live reads as a loss
  const costTone = (gap: number | null) => (gap === null ? undefined : signTone(-gap));
  return (
    <section aria-labelledby="drift-costs-title" className="drift-section">
      <h3 id="drift-costs-title">Costs</h3>
      <DriftCards
        label="Costs"
        cards={[
          { label: 'Slippage mean', value: formatBps(slippage.meanBps), hint: `${slippage.count.toLocaleString('en')} matched fills` },
          { label: 'Slippage p50', value: formatBps(slippage.p50Bps) },
          { label: 'Slippage p95', value: formatBps(slippage.p95Bps) },
          { label: 'Model slippage', value: formatBps(slippage.modelBps), hint: 'What the backtest assumes' },
          {
            label: 'Fee gap',
            value: formatMoney(fees.gap),
            tone: costTone(fees.gap),
            hint: `Live ${formatMoney(fees.live)}, backtest ${formatMoney(fees.replay)}`,
          },
          {
            label: 'Funding gap',
            value: formatMoney(funding.gap),
            tone: costTone(funding.gap),
            hint: funding.live === null ? 'The exchange did not report funding' : `Live ${formatMoney(funding.live)}, backtest ${formatMoney(funding.replay)}`,
          },
        ]}
      />
      <h4>Slippage histogram</h4>
      <SlippageHistogram slippage={slippage} />
    </section>
  );
}

import { formatTime } from '../ui/format.js';
import { formatBasisPoints, formatParams, shortHash, type VerificationRecord } from './record-values.js';

/** What the platform ran, so a buyer knows the record is of what they would run: never the source, its hash. */
export function RecordIdentity({ record }: { record: VerificationRecord }) {
  const id = record.identity;
  return (
    <dl className="record-identity">
      <div>
        <dt>Version</dt>
        <dd>{id.strategyVersion}</dd>
      </div>
      <div>
        <dt>Source hash</dt>
        <dd>
          <code title={`SHA-256 ${id.sourceSha256}`}>{shortHash(id.sourceSha256)}</code>
        </dd>
      </div>
      <div>
        <dt>Parameters</dt>
        <dd>{formatParams(id.params)}</dd>
      </div>
      <div>
        <dt>Symbols</dt>
        <dd>{id.symbols.join(', ')}</dd>
      </div>
      <div>
        <dt>Timeframe</dt>
        <dd>{id.timeframe}</dd>
      </div>
      <div>
        <dt>Fees</dt>
        <dd>
          maker {formatBasisPoints(id.fees.maker)}, taker {formatBasisPoints(id.fees.taker)}
        </dd>
      </div>
      <div>
        <dt>Slippage</dt>
        <dd>{formatBasisPoints(id.slippage)}</dd>
      </div>
      <div>
        <dt>Funding</dt>
        <dd>{id.funding ? (id.marketType === 'LINEAR' ? 'paid and received' : 'on (none on spot)') : 'off'}</dd>
      </div>
      <div>
        <dt>Backtest window</dt>
        <dd>{record.backtest ? `${record.backtest.start.slice(0, 10)} to ${record.backtest.end.slice(0, 10)}` : 'not run yet'}</dd>
      </div>
      <div>
        <dt>Forward since</dt>
        <dd>{formatTime(record.forward.start)}</dd>
      </div>
    </dl>
  );
}

import { ParamsFields } from '../backtests/params-fields.js';
import { isListingId } from '../marketplace/strategy-options.js';
import type { StrategyMetaView } from './read-strategy-meta.js';

interface ParamsFieldsetProps {
  /** The chosen strategy or bought listing; '' for none yet. */
  strategyId: string;
  /** Its meta as read from its source; null while it loads, and always for a listing (its source is never read). */
  meta: StrategyMetaView | null;
  values: Record<string, string>;
  onChange(values: Record<string, string>): void;
  /** The service's problems by field path (`params.fast`, `params`). */
  errors: Record<string, string[]>;
}

/** The "Strategy parameters" part of the backtest and deployment forms, or why there are no fields. */
export function ParamsFieldset({ strategyId, meta, values, onChange, errors }: ParamsFieldsetProps) {
  return (
    <fieldset>
      <legend>Strategy parameters</legend>
      {meta ? (
        <ParamsFields
          specs={meta.params}
          unreadable={meta.unreadable}
          values={values}
          onChange={(name, value) => onChange({ ...values, [name]: value })}
          errors={errors}
        />
      ) : (
        <p className="muted">
          {!strategyId
            ? 'Choose a strategy to see its parameters.'
            : isListingId(strategyId)
              ? 'A bought strategy runs with the parameters its seller set as defaults: its source stays hidden.'
              : 'Reading the strategy’s parameters…'}
        </p>
      )}
      {errors.params ? <p className="field-error">{errors.params.join('; ')}</p> : null}
    </fieldset>
  );
}

import { FormField } from '../ui/form-field.js';
import type { RiskFormValues } from './deployment-form-values.js';

interface RiskLimitsFieldsetProps {
  values: RiskFormValues;
  onChange(values: RiskFormValues): void;
  /** The service's problems by field path (`risk.maxDrawdown`). */
  errors: Record<string, string[]>;
}

type TextKey = Exclude<keyof RiskFormValues, 'onBreach'>;

/** The deployment's risk limits, each optional: a breach halts it (see docs/live-deployments.md, "Risk limits and halting"). */
export function RiskLimitsFieldset({ values, onChange, errors }: RiskLimitsFieldsetProps) {
  const text = (id: string, key: TextKey, extra: Record<string, unknown>) => (describedBy: string | undefined, invalid: boolean) => (
    <input
      id={id}
      type="number"
      inputMode="decimal"
      step="any"
      value={values[key]}
      onChange={(e) => onChange({ ...values, [key]: e.target.value })}
      aria-describedby={describedBy}
      aria-invalid={invalid}
      {...extra}
    />
  );
  return (
    <fieldset>
      <legend>Risk limits (optional)</legend>
      <p className="muted small">
        A breached limit halts the deployment: its strategy stops and its entry orders are cancelled. Leave a field empty for no limit.
      </p>
      <div className="form-grid">
        <FormField
          id="dep-max-drawdown"
          label="Max drawdown (%)"
          hint="Below the peak equity since start; 20 halts at 20 % down"
          errors={errors['risk.maxDrawdown']}
        >
          {text('dep-max-drawdown', 'maxDrawdownPercent', { min: 0, max: 100 })}
        </FormField>
        <FormField id="dep-daily-loss" label="Daily loss limit (%)" hint="Below the UTC day's starting equity" errors={errors['risk.dailyLossLimit']}>
          {text('dep-daily-loss', 'dailyLossPercent', { min: 0, max: 100 })}
        </FormField>
        <FormField
          id="dep-max-notional"
          label="Max position notional"
          hint="Per symbol, quantity x price in the settle currency; a larger entry is refused"
          errors={errors['risk.maxPositionNotional']}
        >
          {text('dep-max-notional', 'maxPositionNotional', { min: 0 })}
        </FormField>
        <FormField
          id="dep-max-orders"
          label="Max orders per minute"
          hint="Order requests of the strategy within a minute"
          errors={errors['risk.maxOrdersPerMinute']}
        >
          {text('dep-max-orders', 'maxOrdersPerMinute', { min: 1, step: 1, inputMode: 'numeric' })}
        </FormField>
        <FormField id="dep-on-breach" label="On a breach" errors={errors['risk.onBreach']}>
          {(describedBy) => (
            <select
              id="dep-on-breach"
              value={values.onBreach}
              onChange={(e) => onChange({ ...values, onBreach: e.target.value === 'keep' ? 'keep' : 'close' })}
              aria-describedby={describedBy}
            >
              <option value="close">Close the positions at market</option>
              <option value="keep">Keep the positions and their exit orders</option>
            </select>
          )}
        </FormField>
      </div>
    </fieldset>
  );
}

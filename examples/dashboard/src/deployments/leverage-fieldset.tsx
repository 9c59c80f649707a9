import { FormField } from '../ui/form-field.js';
import type { DeploymentFormValues } from './deployment-form-values.js';

interface LeverageFieldsetProps {
  leverage: string;
  marginMode: DeploymentFormValues['marginMode'];
  onChange(change: Pick<DeploymentFormValues, 'leverage' | 'marginMode'>): void;
  /** The service's problems by field path (`leverage`). */
  errors: Record<string, string[]>;
}

/** Leverage and margin mode of a perpetual deployment, both optional: set on the exchange before it starts (docs/live-deployments.md, "Pre-flight checks"). */
export function LeverageFieldset({ leverage, marginMode, onChange, errors }: LeverageFieldsetProps) {
  return (
    <fieldset>
      <legend>Leverage (optional)</legend>
      <p className="muted small">Set on each symbol before the deployment starts. Leave empty to keep the account's own settings.</p>
      <div className="form-grid">
        <FormField id="dep-leverage" label="Leverage" hint="A whole number from 1 to 125" errors={errors['leverage']}>
          {(describedBy, invalid) => (
            <input
              id="dep-leverage"
              type="number"
              inputMode="numeric"
              min={1}
              max={125}
              step={1}
              value={leverage}
              onChange={(e) => onChange({ leverage: e.target.value, marginMode })}
              aria-describedby={describedBy}
              aria-invalid={invalid}
            />
          )}
        </FormField>
        <FormField id="dep-margin-mode" label="Margin mode" errors={errors['marginMode']}>
          {(describedBy) => (
            <select
              id="dep-margin-mode"
              value={marginMode}
              onChange={(e) => onChange({ leverage, marginMode: e.target.value === 'isolated' || e.target.value === 'cross' ? e.target.value : '' })}
              aria-describedby={describedBy}
            >
              <option value="">Keep the account's</option>
              <option value="isolated">Isolated</option>
              <option value="cross">Cross</option>
            </select>
          )}
        </FormField>
      </div>
    </fieldset>
  );
}

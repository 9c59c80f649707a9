import type { OptimizationObjective } from '@stratbox/client';
import { FormField } from '../ui/form-field.js';
import { OBJECTIVES, type OptimizationFormValues, type ValidationKind } from './optimization-form-values.js';

/** The settings' fields that an input holds as typed. */
type TextKey = 'count' | 'seed' | 'minTrades' | 'maxDrawdown' | 'holdoutFraction' | 'folds' | 'inSampleFraction';

interface SearchSettingsProps {
  values: OptimizationFormValues;
  onChange(values: OptimizationFormValues): void;
  /** The service's problems by field path (`method.count`, `validation.folds`). */
  errors: Record<string, string[]>;
}

/** How the search runs: method and objective, the constraints on the best, and the validation scheme. */
export function SearchSettings({ values, onChange, errors }: SearchSettingsProps) {
  const set = <K extends keyof OptimizationFormValues>(key: K, value: OptimizationFormValues[K]) => onChange({ ...values, [key]: value });
  const number = (id: string, key: TextKey, label: string, path: string, hint?: string, extra: Record<string, unknown> = {}) => (
    <FormField id={id} label={label} hint={hint} errors={errors[path]}>
      {(describedBy, invalid) => (
        <input
          id={id}
          type="number"
          inputMode="decimal"
          step="any"
          value={values[key]}
          onChange={(e) => set(key, e.target.value)}
          aria-describedby={describedBy}
          aria-invalid={invalid}
          {...extra}
        />
      )}
    </FormField>
  );
  const select = (id: string, label: string, path: string, value: string, onSelect: (v: string) => void, options: Array<[string, string]>) => (
    <FormField id={id} label={label} errors={errors[path]}>
      {(describedBy, invalid) => (
        <select id={id} value={value} onChange={(e) => onSelect(e.target.value)} aria-describedby={describedBy} aria-invalid={invalid}>
          {options.map(([v, text]) => (
            <option key={v} value={v}>
              {text}
            </option>
          ))}
        </select>
      )}
    </FormField>
  );

  return (
    <>
      <fieldset>
        <legend>Search</legend>
        <div className="form-grid">
          {select('opt-method', 'Method', 'method.kind', values.method, (v) => set('method', v as 'grid' | 'random'), [
            ['grid', 'Grid: every combination'],
            ['random', 'Random: a seeded sample'],
          ])}
          {values.method === 'random'
            ? number('opt-count', 'count', 'Combinations to draw', 'method.count', 'At most the grid’s size', { min: 1, step: 1 })
            : null}
          {values.method === 'random'
            ? number('opt-seed', 'seed', 'Seed', 'method.seed', 'The same seed draws the same combinations', { min: 0, step: 1 })
            : null}
          {select(
            'opt-objective',
            'Objective (maximized)',
            'objective',
            values.objective,
            (v) => set('objective', v as OptimizationObjective),
            OBJECTIVES.map((o) => [o.value, o.label]),
          )}
        </div>
      </fieldset>
      <fieldset>
        <legend>Constraints on the best</legend>
        <div className="form-grid">
          {number('opt-min-trades', 'minTrades', 'Minimum trades', 'constraints.minTrades', 'Empty: none', { min: 0, step: 1 })}
          {number('opt-max-drawdown', 'maxDrawdown', 'Maximum drawdown', 'constraints.maxDrawdown', 'A fraction: 0.3 is 30%; empty: none', { min: 0, max: 1 })}
        </div>
      </fieldset>
      <fieldset>
        <legend>Validation</legend>
        <div className="form-grid">
          {select('opt-validation', 'Scheme', 'validation.kind', values.validation, (v) => set('validation', v as ValidationKind), [
            ['none', 'None: search the whole range'],
            ['holdout', 'Holdout: test the winner on the end'],
            ['walk-forward', 'Walk-forward folds'],
          ])}
          {values.validation === 'holdout'
            ? number(
                'opt-holdout',
                'holdoutFraction',
                'Held-out fraction',
                'validation.fraction',
                'The last part of the range the search never sees: 0.25 is a quarter',
                {
                  min: 0,
                  max: 1,
                },
              )
            : null}
          {values.validation === 'walk-forward'
            ? number('opt-folds', 'folds', 'Folds', 'validation.folds', '1 to 20 out-of-sample blocks', { min: 1, max: 20, step: 1 })
            : null}
          {values.validation === 'walk-forward'
            ? select('opt-fold-mode', 'Window', 'validation.mode', values.foldMode, (v) => set('foldMode', v as 'rolling' | 'anchored'), [
                ['rolling', 'Rolling: a fixed length'],
                ['anchored', 'Anchored: from the start'],
              ])
            : null}
          {values.validation === 'walk-forward'
            ? number('opt-in-sample', 'inSampleFraction', 'In-sample fraction', 'validation.inSampleFraction', 'Of each fold’s window: 0.5 is half', {
                min: 0,
                max: 1,
              })
            : null}
        </div>
      </fieldset>
    </>
  );
}

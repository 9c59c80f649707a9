import { useState } from 'react';
import { FormField } from '../ui/form-field.js';
import { ParamInput } from '../backtests/params-fields.js';
import { isListingId } from '../marketplace/strategy-options.js';
import { paramBounds } from '../strategies/params-preview.js';
import type { ParamSpec, StrategyMetaView } from '../strategies/read-strategy-meta.js';
import { FieldError } from '../ui/field-error.js';
import { initialChoice, isNumeric, type ParamChoice, problemsAt, valueCount } from './optimization-form-values.js';

interface SearchFieldsetProps {
  strategyId: string;
  meta: StrategyMetaView | null;
  /** Per parameter: fixed or searched, and how. */
  choices: Record<string, ParamChoice>;
  /** The fixed values (the run's `params`). */
  fixed: Record<string, string>;
  onChange(choices: Record<string, ParamChoice>, fixed: Record<string, string>): void;
  /** The service's problems by field path (`searchSpace.fast.step`, `params.slow`). */
  errors: Record<string, string[]>;
}

/** One parameter: a fixed value for every trial, or searched (a range for numbers, a list of values otherwise). */
function ParamSearch({
  name,
  spec,
  choice,
  fixed,
  onChoice,
  onFixed,
  errors,
}: {
  name: string;
  spec: ParamSpec | undefined;
  choice: ParamChoice;
  fixed: string;
  onChoice(choice: ParamChoice): void;
  onFixed(value: string): void;
  errors: Record<string, string[]>;
}) {
  const id = `search-${name}`;
  const set = (key: keyof ParamChoice, value: string) => onChoice({ ...choice, [key]: value });
  const at = (field: string) => problemsAt(errors, `searchSpace.${name}.${field}`);
  const count = choice.mode === 'search' ? valueCount(choice, spec) : null;
  const about = spec
    ? [spec.type, paramBounds(spec), spec.default === undefined ? 'required' : `default ${spec.default}`].filter(Boolean).join(' · ')
    : 'not read from the source';
  const own = errors[`searchSpace.${name}`];
  return (
    <fieldset className="param-search">
      <legend>{name}</legend>
      <p className="hint">{spec?.description ? `${spec.description} (${about})` : about}</p>
      <div className="choice-row" role="radiogroup" aria-label={`How ${name} is set`}>
        {(['fixed', 'search'] as const).map((mode) => (
          <label key={mode} className="radio">
            <input type="radio" name={`${id}-mode`} value={mode} checked={choice.mode === mode} onChange={() => set('mode', mode)} />
            {mode === 'fixed' ? 'Fixed value' : 'Search'}
          </label>
        ))}
      </div>
      {choice.mode === 'fixed' ? (
        <FormField id={`param-${name}`} label="Value" errors={errors[`params.${name}`]}>
          {(describedBy, invalid) => <ParamInput name={name} spec={spec} value={fixed} onChange={onFixed} describedBy={describedBy} invalid={invalid} />}
        </FormField>
      ) : isNumeric(spec) ? (
        <div className="range-grid">
          {(['min', 'max', 'step'] as const).map((field) => (
            <FormField key={field} id={`${id}-${field}`} label={field === 'min' ? 'From' : field === 'max' ? 'To' : 'Step'} errors={at(field)}>
              {(describedBy, invalid) => (
                <input
                  id={`${id}-${field}`}
                  type="number"
                  inputMode="decimal"
                  step="any"
                  value={choice[field]}
                  onChange={(e) => set(field, e.target.value)}
                  aria-describedby={describedBy}
                  aria-invalid={invalid}
                />
              )}
            </FormField>
          ))}
        </div>
      ) : (
        <FormField id={`${id}-values`} label="Values" hint="Separated by commas" errors={at('values')}>
          {(describedBy, invalid) => (
            <input
              id={`${id}-values`}
              value={choice.list}
              onChange={(e) => set('list', e.target.value)}
              aria-describedby={describedBy}
              aria-invalid={invalid}
            />
          )}
        </FormField>
      )}
      {choice.mode === 'search' ? (
        <p className="hint">{count === null ? 'Values to count: fill in the fields' : `${count.toLocaleString('en')} value(s)`}</p>
      ) : null}
      <FieldError id={`${id}-error`} messages={own} />
    </fieldset>
  );
}

/** Naming a parameter of a bought strategy, whose `meta` the page cannot read. */
function AddParameter({ onAdd }: { onAdd(name: string): void }) {
  const [name, setName] = useState('');
  const add = () => {
    if (/^[A-Za-z_][A-Za-z0-9_]{0,63}$/.test(name.trim())) onAdd(name.trim());
    setName('');
  };
  return (
    <div className="form-row">
      <div className="field">
        <label htmlFor="search-add">Parameter name</label>
        <input
          id="search-add"
          value={name}
          onChange={(e) => setName(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter') {
              e.preventDefault();
              add();
            }
          }}
        />
      </div>
      <button type="button" onClick={add} disabled={!name.trim()}>
        Add parameter
      </button>
    </div>
  );
}

/** The "Parameters" part of the optimization form: each of `meta.params`, fixed or searched. */
export function SearchFieldset({ strategyId, meta, choices, fixed, onChange, errors }: SearchFieldsetProps) {
  const specs = meta?.params ?? {};
  const names = Object.keys(choices);
  const listing = isListingId(strategyId);
  return (
    <fieldset>
      <legend>Parameters</legend>
      {!strategyId ? <p className="muted">Choose a strategy to see its parameters.</p> : null}
      {strategyId && !meta && !listing ? <p className="muted">Reading the strategy’s parameters…</p> : null}
      {listing ? <p className="muted">A bought strategy’s source stays hidden: name the parameters to search as its listing describes them.</p> : null}
      {meta && names.length === 0 ? <p className="muted">This strategy declares no parameters in its meta: there is nothing to search.</p> : null}
      <div className="param-searches">
        {names.map((name) => (
          <ParamSearch
            key={name}
            name={name}
            spec={specs[name]}
            choice={choices[name]!}
            fixed={fixed[name] ?? ''}
            onChoice={(choice) => onChange({ ...choices, [name]: choice }, fixed)}
            onFixed={(value) => onChange(choices, { ...fixed, [name]: value })}
            errors={errors}
          />
        ))}
      </div>
      {listing ? <AddParameter onAdd={(name) => onChange({ ...choices, [name]: { ...initialChoice(undefined), mode: 'search' } }, fixed)} /> : null}
      <FieldError id="search-space-error" messages={errors.searchSpace} />
      {errors.params ? <p className="field-error">{errors.params.join('; ')}</p> : null}
    </fieldset>
  );
}

import { paramBounds } from '../strategies/params-preview.js';
import type { ParamSpec } from '../strategies/read-strategy-meta.js';
import { FormField } from '../ui/form-field.js';

interface ParamsFieldsProps {
  specs: Record<string, ParamSpec>;
  /** Parameters the page could not read from the source: typed as text. */
  unreadable: string[];
  values: Record<string, string>;
  onChange(name: string, value: string): void;
  /** The service's problems by field path (`params.fast`). */
  errors: Record<string, string[]>;
}

/** The input of one parameter (id `param-<name>`): a select for an enum or a boolean, a bounded number, or text. */
export function ParamInput({
  name,
  spec,
  value,
  onChange,
  describedBy,
  invalid,
}: {
  name: string;
  spec: ParamSpec | undefined;
  value: string;
  onChange(v: string): void;
  describedBy: string | undefined;
  invalid: boolean;
}) {
  const common = { id: `param-${name}`, 'aria-describedby': describedBy, 'aria-invalid': invalid, value };
  if (spec?.type === 'enum') {
    return (
      <select {...common} onChange={(e) => onChange(e.target.value)}>
        {spec.default === undefined ? <option value="">Choose…</option> : null}
        {spec.values.map((v) => (
          <option key={v} value={v}>
            {v}
          </option>
        ))}
      </select>
    );
  }
  if (spec?.type === 'bool' || spec?.type === 'boolean') {
    return (
      <select {...common} onChange={(e) => onChange(e.target.value)}>
        {spec.default === undefined ? <option value="">Choose…</option> : null}
        <option value="true">true</option>
        <option value="false">false</option>
      </select>
    );
  }
  if (spec && (spec.type === 'int' || spec.type === 'float' || spec.type === 'number')) {
    return (
      <input
        {...common}
        type="number"
        inputMode={spec.type === 'int' ? 'numeric' : 'decimal'}
        step={spec.type === 'int' ? 1 : 'any'}
        min={spec.min}
        max={spec.max}
        onChange={(e) => onChange(e.target.value)}
      />
    );
  }
  return <input {...common} type="text" maxLength={spec?.type === 'string' ? spec.maxLength : undefined} onChange={(e) => onChange(e.target.value)} />;
}

/** A field per strategy parameter, typed and bounded as `meta.params` says, with the service's problems under each. */
export function ParamsFields({ specs, unreadable, values, onChange, errors }: ParamsFieldsProps) {
  const names = [...Object.keys(specs), ...unreadable];
  if (names.length === 0) return <p className="muted">This strategy declares no parameters in its meta.</p>;
  return (
    <div className="params-grid">
      {names.map((name) => {
        const spec = specs[name];
        const hint = spec
          ? [spec.type, paramBounds(spec), spec.default === undefined ? 'required' : `default ${spec.default}`].filter(Boolean).join(' · ')
          : 'computed in code: written as text';
        return (
          <FormField
            key={name}
            id={`param-${name}`}
            label={name}
            hint={spec?.description ? `${spec.description} (${hint})` : hint}
            errors={errors[`params.${name}`]}
          >
            {(describedBy, invalid) => (
              <ParamInput name={name} spec={spec} value={values[name] ?? ''} onChange={(v) => onChange(name, v)} describedBy={describedBy} invalid={invalid} />
            )}
          </FormField>
        );
      })}
    </div>
  );
}

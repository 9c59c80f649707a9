import type { StrategySummary } from '@stratbox/client';
import { type FormEvent, useState } from 'react';
import { ErrorBanner } from '../ui/error-banner.js';
import { FormField } from '../ui/form-field.js';
import { useAction } from '../ui/use-action.js';
import { LISTING_TIMEFRAMES, type ListingFormValues } from './listing-values.js';

interface ListingFormProps {
  initial: ListingFormValues;
  /** A new listing picks one of the user's strategies; an edited one keeps its own. */
  strategies: StrategySummary[] | null;
  submitLabel: string;
  /** Saves; throws what the client threw. */
  onSave(values: ListingFormValues): Promise<void>;
  onCancel(): void;
}

/**
 * Name, description, price and tags of a listing (and, when new, its strategy and the symbols and
 * timeframe the platform verifies it on); the service's problems at their field.
 */
export function ListingForm({ initial, strategies, submitLabel, onSave, onCancel }: ListingFormProps) {
  const [values, setValues] = useState(initial);
  const save = useAction();
  const { error, busy: saving } = save;
  const set = <K extends keyof ListingFormValues>(key: K, value: ListingFormValues[K]) => setValues((v) => ({ ...v, [key]: value }));
  const fields = error?.fields ?? {};
  /** The messages of a list field and of its items (`tags`, `tags.2`). */
  const listErrors = (key: string) =>
    Object.entries(fields)
      .filter(([path]) => path === key || path.startsWith(`${key}.`))
      .flatMap(([, messages]) => messages);
  const tagErrors = listErrors('tags');
  const symbolErrors = listErrors('symbols');
  /** A text input's props, given the ids that describe it (FormField's). */
  const input = (key: 'name' | 'price' | 'tags' | 'symbols', describedBy: string | undefined, invalid: boolean) => ({
    id: `listing-${key}`,
    value: values[key],
    onChange: (e: { target: { value: string } }) => set(key, e.target.value),
    'aria-invalid': invalid,
    'aria-describedby': describedBy,
  });

  async function submit(event: FormEvent) {
    event.preventDefault();
    await save.run(() => onSave(values));
  }

  return (
    <form className="card listing-form" onSubmit={submit} noValidate>
      <ErrorBanner error={error} title="The listing was not saved" />
      <div className="form-grid">
        {strategies ? (
          <FormField id="listing-strategy" label="Strategy" hint="Its current version is published; buyers never see its source." errors={fields.strategyId}>
            {(describedBy, invalid) => (
              <select
                id="listing-strategy"
                value={values.strategyId}
                onChange={(e) => set('strategyId', e.target.value)}
                aria-invalid={invalid}
                aria-describedby={describedBy}
              >
                <option value="">Choose one of your strategies…</option>
                {strategies.map((s) => (
                  <option key={s.id} value={s.id}>
                    {s.name} (v{s.version})
                  </option>
                ))}
              </select>
            )}
          </FormField>
        ) : null}
        <FormField id="listing-name" label="Name" hint="What buyers see in the list" errors={fields.name}>
          {(describedBy, invalid) => <input {...input('name', describedBy, invalid)} maxLength={200} />}
        </FormField>
        <FormField id="listing-price" label="Price (USD)" hint="Empty or 0: free" errors={fields.price}>
          {(describedBy, invalid) => <input {...input('price', describedBy, invalid)} type="number" inputMode="decimal" min={0} step="0.01" placeholder="0" />}
        </FormField>
        <FormField id="listing-tags" label="Tags" hint="Up to 10, separated by commas: letters, digits and dashes" errors={tagErrors}>
          {(describedBy, invalid) => <input {...input('tags', describedBy, invalid)} spellCheck={false} />}
        </FormField>
        {strategies ? (
          <>
            <FormField
              id="listing-symbols"
              label="Verified on symbols"
              hint="The platform's backtest and forward record run on these: ccxt symbols of the strategy's market, separated by commas or spaces. Empty: BTC/USDT:USDT (perpetual) or BTC/USDT (spot)"
              errors={symbolErrors}
            >
              {(describedBy, invalid) => (
                <input {...input('symbols', describedBy, invalid)} spellCheck={false} autoCapitalize="characters" placeholder="BTC/USDT:USDT" />
              )}
            </FormField>
            <FormField
              id="listing-timeframe"
              label="Verified on timeframe"
              hint="The candles the record advances on (1h when the strategy declares none)"
              errors={fields.timeframe}
            >
              {(describedBy, invalid) => (
                <select
                  id="listing-timeframe"
                  value={values.timeframe}
                  onChange={(e) => set('timeframe', e.target.value)}
                  aria-invalid={invalid}
                  aria-describedby={describedBy}
                >
                  <option value="">The strategy's declared timeframe</option>
                  {LISTING_TIMEFRAMES.map((t) => (
                    <option key={t} value={t}>
                      {t}
                    </option>
                  ))}
                </select>
              )}
            </FormField>
          </>
        ) : null}
      </div>
      <FormField id="listing-description" label="Description" errors={fields.description}>
        {(describedBy, invalid) => (
          <textarea
            id="listing-description"
            rows={4}
            maxLength={10_000}
            value={values.description}
            onChange={(e) => set('description', e.target.value)}
            aria-invalid={invalid}
            aria-describedby={describedBy}
          />
        )}
      </FormField>
      <div className="actions">
        <button type="submit" className="primary" disabled={saving || (strategies !== null && !values.strategyId)}>
          {saving ? 'Saving…' : submitLabel}
        </button>
        <button type="button" onClick={onCancel} disabled={saving}>
          Cancel
        </button>
      </div>
    </form>
  );
}

import type { StrategySummary } from '@stratbox/client';
import { type FormEvent, useState } from 'react';
import { ErrorBanner } from '../ui/error-banner.js';
import { FieldError } from '../ui/field-error.js';
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
  const input = (key: 'name' | 'price' | 'tags' | 'symbols', errors: string[] | undefined) => ({
    id: `listing-${key}`,
    value: values[key],
    onChange: (e: { target: { value: string } }) => set(key, e.target.value),
    'aria-invalid': Boolean(errors?.length),
    'aria-describedby': [`listing-${key}-hint`, errors?.length ? `listing-${key}-error` : ''].filter(Boolean).join(' '),
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
          <div className="field">
            <label htmlFor="listing-strategy">Strategy</label>
            <select
              id="listing-strategy"
              value={values.strategyId}
              onChange={(e) => set('strategyId', e.target.value)}
              aria-invalid={Boolean(fields.strategyId)}
            >
              <option value="">Choose one of your strategies…</option>
              {strategies.map((s) => (
                <option key={s.id} value={s.id}>
                  {s.name} (v{s.version})
                </option>
              ))}
            </select>
            <span className="hint">Its current version is published; buyers never see its source.</span>
            <FieldError id="listing-strategy-error" messages={fields.strategyId} />
          </div>
        ) : null}
        <div className="field">
          <label htmlFor="listing-name">Name</label>
          <input {...input('name', fields.name)} maxLength={200} />
          <span className="hint" id="listing-name-hint">
            What buyers see in the list
          </span>
          <FieldError id="listing-name-error" messages={fields.name} />
        </div>
        <div className="field">
          <label htmlFor="listing-price">Price (USD)</label>
          <input {...input('price', fields.price)} type="number" inputMode="decimal" min={0} step="0.01" placeholder="0" />
          <span className="hint" id="listing-price-hint">
            Empty or 0: free
          </span>
          <FieldError id="listing-price-error" messages={fields.price} />
        </div>
        <div className="field">
          <label htmlFor="listing-tags">Tags</label>
          <input {...input('tags', tagErrors)} spellCheck={false} />
          <span className="hint" id="listing-tags-hint">
            Up to 10, separated by commas: letters, digits and dashes
          </span>
          <FieldError id="listing-tags-error" messages={tagErrors} />
        </div>
        {strategies ? (
          <>
            <div className="field">
              <label htmlFor="listing-symbols">Verified on symbols</label>
              <input {...input('symbols', symbolErrors)} spellCheck={false} autoCapitalize="characters" placeholder="BTC/USDT:USDT" />
              <span className="hint" id="listing-symbols-hint">
                The platform's backtest and forward record run on these: ccxt symbols of the strategy's market, separated by commas or spaces. Empty:
                BTC/USDT:USDT (perpetual) or BTC/USDT (spot)
              </span>
              <FieldError id="listing-symbols-error" messages={symbolErrors} />
            </div>
            <div className="field">
              <label htmlFor="listing-timeframe">Verified on timeframe</label>
              <select
                id="listing-timeframe"
                value={values.timeframe}
                onChange={(e) => set('timeframe', e.target.value)}
                aria-invalid={Boolean(fields.timeframe?.length)}
                aria-describedby={['listing-timeframe-hint', fields.timeframe?.length ? 'listing-timeframe-error' : ''].filter(Boolean).join(' ')}
              >
                <option value="">The strategy's declared timeframe</option>
                {LISTING_TIMEFRAMES.map((t) => (
                  <option key={t} value={t}>
                    {t}
                  </option>
                ))}
              </select>
              <span className="hint" id="listing-timeframe-hint">
                The candles the record advances on (1h when the strategy declares none)
              </span>
              <FieldError id="listing-timeframe-error" messages={fields.timeframe} />
            </div>
          </>
        ) : null}
      </div>
      <div className="field">
        <label htmlFor="listing-description">Description</label>
        <textarea id="listing-description" rows={4} maxLength={10_000} value={values.description} onChange={(e) => set('description', e.target.value)} />
        <FieldError id="listing-description-error" messages={fields.description} />
      </div>
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

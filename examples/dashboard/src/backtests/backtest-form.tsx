import type { StrategySummary } from '@stratbox/client';
import type { FormEvent } from 'react';
import type { BoughtListing } from '../marketplace/use-bought-listings.js';
import { ParamsFieldset } from '../strategies/params-fieldset.js';
import type { StrategyMetaView } from '../strategies/read-strategy-meta.js';
import type { ErrorView } from '../ui/describe-error.js';
import { ErrorBanner } from '../ui/error-banner.js';
import type { BacktestFormValues } from './backtest-form-values.js';
import { RunFields } from './run-fields.js';

interface BacktestFormProps {
  strategies: StrategySummary[];
  /** Listings the user bought: run by listing id, their source never read. */
  bought: BoughtListing[];
  values: BacktestFormValues;
  onChange(values: BacktestFormValues): void;
  /** What the page read of the chosen strategy's meta; null while it loads. */
  meta: StrategyMetaView | null;
  error: ErrorView | null;
  submitting: boolean;
  onSubmit(): void;
}

/** Everything a backtest takes: the run's fields (strategy, symbols, range, costs...) and the strategy's parameters. */
export function BacktestForm({ strategies, bought, values, onChange, meta, error, submitting, onSubmit }: BacktestFormProps) {
  const fields = error?.fields ?? {};
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onSubmit();
  };
  return (
    <form className="backtest-form" onSubmit={submit} noValidate>
      <ErrorBanner error={error} title="The backtest was not started" />
      <RunFields strategies={strategies} bought={bought} values={values} onChange={onChange} meta={meta} errors={fields} />
      <ParamsFieldset
        strategyId={values.strategyId}
        meta={meta}
        values={values.params}
        onChange={(params) => onChange({ ...values, params })}
        errors={fields}
      />
      <div className="actions">
        <button type="submit" className="primary" disabled={submitting || !values.strategyId}>
          {submitting ? 'Starting…' : 'Run backtest'}
        </button>
      </div>
    </form>
  );
}

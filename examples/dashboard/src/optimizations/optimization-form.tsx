import type { StrategySummary } from '@stratbox/client';
import type { FormEvent } from 'react';
import { RunFields } from '../backtests/run-fields.js';
import type { BoughtListing } from '../marketplace/use-bought-listings.js';
import type { StrategyMetaView } from '../strategies/read-strategy-meta.js';
import type { ErrorView } from '../ui/describe-error.js';
import { ErrorBanner } from '../ui/error-banner.js';
import { type OptimizationFormValues, trialCount } from './optimization-form-values.js';
import { SearchFieldset } from './search-fieldset.js';
import { SearchSettings } from './search-settings.js';

interface OptimizationFormProps {
  strategies: StrategySummary[];
  bought: BoughtListing[];
  values: OptimizationFormValues;
  onChange(values: OptimizationFormValues): void;
  meta: StrategyMetaView | null;
  error: ErrorView | null;
  submitting: boolean;
  onSubmit(): void;
}

/** The trials the form asks for, as the service will count them, said before it is sent. */
function TrialCountLine({ values, meta }: { values: OptimizationFormValues; meta: StrategyMetaView | null }) {
  const count = trialCount(values, meta?.params ?? {});
  const searched = Object.values(values.choices).some((c) => c.mode === 'search');
  const text = !searched
    ? 'Choose at least one parameter to search.'
    : count.total === null
      ? 'Fill in the searched values (and the folds) to count the trials.'
      : `${count.combinations!.toLocaleString('en')} parameter set(s) × ${count.folds} fold(s) = ${count.total.toLocaleString('en')} trial(s)`;
  return (
    <p className="trial-count" aria-live="polite" data-trials={count.total ?? undefined}>
      {text}
    </p>
  );
}

/** Everything an optimization takes: the run's fields, each parameter fixed or searched, the search settings, and the trial count. */
export function OptimizationForm({ strategies, bought, values, onChange, meta, error, submitting, onSubmit }: OptimizationFormProps) {
  const fields = error?.fields ?? {};
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onSubmit();
  };
  const overCap = error?.code === 'PLAN_LIMIT_EXCEEDED';
  return (
    <form className="optimization-form" onSubmit={submit} noValidate>
      <ErrorBanner error={error} title={overCap ? 'Too many trials for your plan' : 'The optimization was not started'} />
      <RunFields strategies={strategies} bought={bought} values={values.run} onChange={(run) => onChange({ ...values, run })} meta={meta} errors={fields} />
      <SearchFieldset
        strategyId={values.run.strategyId}
        meta={meta}
        choices={values.choices}
        fixed={values.run.params}
        onChange={(choices, params) => onChange({ ...values, choices, run: { ...values.run, params } })}
        errors={fields}
      />
      <SearchSettings values={values} onChange={onChange} errors={fields} />
      <div className="actions">
        <button type="submit" className="primary" disabled={submitting || !values.run.strategyId}>
          {submitting ? 'Starting…' : 'Start optimization'}
        </button>
        <TrialCountLine values={values} meta={meta} />
      </div>
    </form>
  );
}

import type { StrategySummary } from '@stratbox/client';
import type { FormEvent } from 'react';
import { FormField } from '../ui/form-field.js';
import { StrategyField } from '../marketplace/strategy-options.js';
import type { BoughtListing } from '../marketplace/use-bought-listings.js';
import { ParamsFieldset } from '../strategies/params-fieldset.js';
import type { StrategyMetaView } from '../strategies/read-strategy-meta.js';
import type { ErrorView } from '../ui/describe-error.js';
import { ErrorBanner } from '../ui/error-banner.js';
import { type DeploymentFormValues, offersLeverage } from './deployment-form-values.js';
import { LeverageFieldset } from './leverage-fieldset.js';
import { RiskLimitsFieldset } from './risk-limits-fieldset.js';

export interface CredentialChoice {
  id: string;
  exchange: string;
  label: string;
  testnet: boolean;
}

interface DeploymentFormProps {
  strategies: StrategySummary[];
  bought: BoughtListing[];
  credentials: CredentialChoice[];
  values: DeploymentFormValues;
  onChange(values: DeploymentFormValues): void;
  /** The chosen strategy's meta; null while it loads or for a bought one. */
  meta: StrategyMetaView | null;
  error: ErrorView | null;
  submitting: boolean;
  onSubmit(): void;
}

function credentialName(c: CredentialChoice): string {
  if (c.exchange === 'paper') return `${c.label} (paper: simulated)`;
  return `${c.label} (${c.exchange}${c.testnet ? ' testnet' : ', real money'})`;
}

/** What a deployment takes: the strategy (own or bought), the exchange account, the symbols, the parameters, the risk limits and (perpetuals) the leverage. */
export function DeploymentForm({ strategies, bought, credentials, values, onChange, meta, error, submitting, onSubmit }: DeploymentFormProps) {
  const set = <K extends keyof DeploymentFormValues>(key: K, value: DeploymentFormValues[K]) => onChange({ ...values, [key]: value });
  const fields = error?.fields ?? {};
  const live = credentials.find((c) => c.id === values.credentialId && c.exchange !== 'paper' && !c.testnet);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onSubmit();
  };
  return (
    <form className="deployment-form" onSubmit={submit} noValidate>
      <ErrorBanner error={error} title="The deployment was not started" />
      <fieldset>
        <legend>What to run, and where</legend>
        <div className="form-grid">
          <StrategyField
            id="dep-strategy"
            strategies={strategies}
            bought={bought}
            value={values.strategyId}
            onChange={(v) => set('strategyId', v)}
            errors={fields.strategyId}
          />
          <FormField
            id="dep-credential"
            label="Exchange account"
            hint={live ? 'This account trades real money.' : 'Paper accounts trade simulated money.'}
            errors={fields.credentialId}
          >
            {(describedBy, invalid) => (
              <select
                id="dep-credential"
                value={values.credentialId}
                onChange={(e) => set('credentialId', e.target.value)}
                aria-describedby={describedBy}
                aria-invalid={invalid}
              >
                <option value="">Choose an account…</option>
                {credentials.map((c) => (
                  <option key={c.id} value={c.id}>
                    {credentialName(c)}
                  </option>
                ))}
              </select>
            )}
          </FormField>
          <FormField id="dep-symbols" label="Symbols" hint="ccxt symbols, separated by commas or spaces: BTC/USDT:USDT ETH/USDT:USDT" errors={fields.symbols}>
            {(describedBy, invalid) => (
              <input
                id="dep-symbols"
                value={values.symbols}
                onChange={(e) => set('symbols', e.target.value)}
                aria-describedby={describedBy}
                aria-invalid={invalid}
                spellCheck={false}
                autoCapitalize="characters"
              />
            )}
          </FormField>
        </div>
      </fieldset>
      <ParamsFieldset strategyId={values.strategyId} meta={meta} values={values.params} onChange={(params) => set('params', params)} errors={fields} />
      <RiskLimitsFieldset values={values.risk} onChange={(risk) => set('risk', risk)} errors={fields} />
      {offersLeverage(values.symbols, credentials.find((c) => c.id === values.credentialId)?.exchange) ? (
        <LeverageFieldset leverage={values.leverage} marginMode={values.marginMode} onChange={(change) => onChange({ ...values, ...change })} errors={fields} />
      ) : null}
      <div className="actions">
        <button type="submit" className="primary" disabled={submitting || !values.strategyId || !values.credentialId}>
          {submitting ? 'Starting…' : live ? 'Deploy with real money' : 'Deploy'}
        </button>
      </div>
    </form>
  );
}

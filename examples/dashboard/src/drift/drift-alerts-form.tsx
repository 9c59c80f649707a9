import { type FormEvent, useEffect, useState } from 'react';
import { FormField } from '../ui/form-field.js';
import { ErrorBanner } from '../ui/error-banner.js';
import { Loading } from '../ui/loading.js';
import { useAction } from '../ui/use-action.js';
import { useAsync } from '../ui/use-async.js';
import { type DriftAlertValues, toAlertValues, toThresholds } from './drift-alert-values.js';
import type { DriftApi } from './drift-api.js';

type NumberKey = Exclude<keyof DriftAlertValues, 'parityMiss'>;

const FIELDS: Array<{ key: NumberKey; id: string; label: string; hint: string; min?: number; max?: number }> = [
  {
    key: 'minCorrelation',
    id: 'drift-min-correlation',
    label: 'Minimum returns correlation',
    hint: 'Alert below this (-1 to 1; default 0.8)',
    min: -1,
    max: 1,
  },
  { key: 'maxDtw', id: 'drift-max-dtw', label: 'Maximum DTW distance', hint: 'Alert above this (annualized; default 0.2)', min: 0 },
  {
    key: 'maxSlippageRatio',
    id: 'drift-max-slippage',
    label: 'Maximum p95 slippage (x the model)',
    hint: "Alert when p95 slippage exceeds the model's times this (default 5)",
    min: 0,
  },
];

/** The deployment's drift alert thresholds: a report that crosses one raises a `deployment.drift` event. An empty field turns that alert off. */
export function DriftAlertsForm({ api, deploymentId }: { api: DriftApi; deploymentId: string }) {
  const saved = useAsync(`drift-alerts:${deploymentId}`, api.thresholds);
  const [values, setValues] = useState<DriftAlertValues | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const save = useAction({ keepError: true });
  useEffect(() => {
    if (saved.data) setValues(toAlertValues(saved.data));
  }, [saved.data]);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!values) return;
    setNotice(null);
    const ok = await save.run(async () => saved.setData(await api.saveThresholds(toThresholds(values))), 'save');
    if (ok) setNotice('Alert thresholds saved.');
  };

  return (
    <section aria-labelledby="drift-alerts-title" className="drift-section">
      <h3 id="drift-alerts-title">Drift alerts</h3>
      <p className="muted small">A report that crosses a threshold raises a drift event (and a notification). Leave a field empty to turn that alert off.</p>
      <ErrorBanner error={saved.error} title="Could not read the alert thresholds" />
      {!values && saved.loading ? <Loading label="Reading the alert thresholds…" /> : null}
      {values ? (
        <form onSubmit={submit} aria-label="Drift alert thresholds">
          <div className="form-grid">
            {FIELDS.map((field) => (
              <FormField key={field.key} id={field.id} label={field.label} hint={field.hint} errors={save.error?.fields[field.key]}>
                {(describedBy, invalid) => (
                  <input
                    id={field.id}
                    type="number"
                    inputMode="decimal"
                    step="any"
                    min={field.min}
                    max={field.max}
                    value={values[field.key]}
                    onChange={(e) => setValues({ ...values, [field.key]: e.target.value })}
                    aria-describedby={describedBy}
                    aria-invalid={invalid}
                  />
                )}
              </FormField>
            ))}
            <div className="field checkbox-field">
              <input
                id="drift-parity-miss"
                type="checkbox"
                checked={values.parityMiss}
                onChange={(e) => setValues({ ...values, parityMiss: e.target.checked })}
              />
              <label htmlFor="drift-parity-miss">Alert on any decision-parity miss</label>
            </div>
          </div>
          <ErrorBanner error={save.error} title="Could not save the alert thresholds" />
          <div className="actions">
            <button type="submit" className="primary" disabled={save.busy}>
              {save.busy ? 'Saving…' : 'Save alerts'}
            </button>
            {notice ? (
              <p className="notice" role="status">
                {notice}
              </p>
            ) : null}
          </div>
        </form>
      ) : null}
    </section>
  );
}

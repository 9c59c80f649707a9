import type { StratboxClient } from '@stratbox/client';
import { type FormEvent, useState } from 'react';
import { useClient } from '../session/session-context.js';
import { ErrorBanner } from '../ui/error-banner.js';
import { FormField } from '../ui/form-field.js';
import { useAction } from '../ui/use-action.js';

type Credential = Awaited<ReturnType<StratboxClient['credentials']['create']>>;

/**
 * For a user with no exchange credential: creates a `paper` one (the built-in simulated exchange,
 * no API key) right in the deployment form, and hands it back to be selected.
 */
export function PaperCredentialForm({ onCreated }: { onCreated(credential: Credential): void }) {
  const client = useClient();
  const [label, setLabel] = useState('Paper account');
  const create = useAction();
  const { error, busy: saving } = create;

  async function submit(event: FormEvent) {
    event.preventDefault();
    await create.run(async () => onCreated(await client.credentials.create({ body: { exchange: 'paper', label } })));
  }

  return (
    <form className="card paper-credential" onSubmit={submit} noValidate aria-labelledby="paper-title">
      <h2 id="paper-title">No exchange account yet</h2>
      <p className="muted">Deploy on paper first: the built-in simulated exchange fills orders at market prices, needs no API key and trades no real money.</p>
      <ErrorBanner error={error} title="The paper account was not created" />
      <div className="form-row">
        <FormField id="paper-label" label="Label" errors={error?.fields.label} grow>
          {(describedBy, invalid) => (
            <input
              id="paper-label"
              value={label}
              maxLength={100}
              onChange={(e) => setLabel(e.target.value)}
              aria-invalid={invalid}
              aria-describedby={describedBy}
            />
          )}
        </FormField>
        <div className="field">
          <button type="submit" className="primary" disabled={saving}>
            {saving ? 'Creating…' : 'Create paper account'}
          </button>
        </div>
      </div>
    </form>
  );
}

import type { NotificationChannelKind, NotificationSeverity, StratboxClient } from '@stratbox/client';
import { type FormEvent, useState } from 'react';
import { useClient } from '../session/session-context.js';
import { ErrorBanner } from '../ui/error-banner.js';
import { FormField } from '../ui/form-field.js';
import { useAction } from '../ui/use-action.js';
import { type ChannelFormValues, checkChannelForm, EMPTY_CHANNEL_FORM, toCreateBody } from './channel-form-values.js';
import { ChannelTargetFields } from './channel-target-fields.js';
import { EventPicker } from './event-picker.js';

export type CreatedChannel = Awaited<ReturnType<StratboxClient['notifications']['create']>>;

const KINDS: Array<{ kind: NotificationChannelKind; label: string }> = [
  { kind: 'webhook', label: 'Webhook' },
  { kind: 'telegram', label: 'Telegram' },
  { kind: 'discord', label: 'Discord' },
];

/** Adds a channel: its kind, label and target, the events it takes and their minimum severity. */
export function ChannelForm({ onCreated, onCancel }: { onCreated(channel: CreatedChannel): void; onCancel(): void }) {
  const client = useClient();
  const [values, setValues] = useState<ChannelFormValues>(EMPTY_CHANNEL_FORM);
  const [checked, setChecked] = useState<Record<string, string[]>>({});
  const create = useAction({ keepError: true });
  const change = (patch: Partial<ChannelFormValues>) => {
    setValues((v) => ({ ...v, ...patch }));
    // a field changed since the last submit no longer shows the form's own complaint about it
    setChecked((c) => Object.fromEntries(Object.entries(c).filter(([name]) => !(name in patch) && !(name === 'events' && 'allEvents' in patch))));
  };
  const problems = { ...create.error?.fields, ...checked };

  async function submit(event: FormEvent) {
    event.preventDefault();
    const found = checkChannelForm(values);
    setChecked(found);
    if (Object.keys(found).length > 0) return;
    await create.run(async () => onCreated(await client.notifications.create({ body: toCreateBody(values) })));
  }

  return (
    <form className="card channel-form" onSubmit={submit} noValidate aria-labelledby="channel-form-title">
      <h2 id="channel-form-title">Add a channel</h2>
      <ErrorBanner error={create.error} title="The channel was not added" />
      <fieldset className="kind-picker">
        <legend>Kind</legend>
        {KINDS.map(({ kind, label }) => (
          <label key={kind} className="checkbox-field">
            <input type="radio" name="channel-kind" value={kind} checked={values.kind === kind} onChange={() => change({ kind })} />
            {label}
          </label>
        ))}
      </fieldset>
      <FormField id="channel-label" label="Label" errors={problems.label}>
        {(describedBy, invalid) => (
          <input
            id="channel-label"
            value={values.label}
            maxLength={100}
            placeholder="e.g. Ops webhook"
            onChange={(e) => change({ label: e.target.value })}
            aria-invalid={invalid}
            aria-describedby={describedBy}
          />
        )}
      </FormField>
      <ChannelTargetFields values={values} onChange={change} problems={problems} />
      <EventPicker allEvents={values.allEvents} events={values.events} onChange={change} problems={problems.events} />
      <div className="field">
        <label htmlFor="channel-severity">Minimum severity</label>
        <select id="channel-severity" value={values.minSeverity} onChange={(e) => change({ minSeverity: e.target.value as NotificationSeverity })}>
          <option value="info">Info: everything picked</option>
          <option value="warning">Warning and critical</option>
          <option value="critical">Critical only</option>
        </select>
      </div>
      <div className="actions">
        <button type="submit" className="primary" disabled={create.busy}>
          {create.busy ? 'Adding…' : 'Add channel'}
        </button>
        <button type="button" onClick={onCancel} disabled={create.busy}>
          Cancel
        </button>
      </div>
    </form>
  );
}

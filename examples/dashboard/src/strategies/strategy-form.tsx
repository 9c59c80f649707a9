import { type FormEvent, useMemo, useRef, useState } from 'react';
import { ErrorBanner } from '../ui/error-banner.js';
import { FieldError } from '../ui/field-error.js';
import { FormField } from '../ui/form-field.js';
import { useAction } from '../ui/use-action.js';
import { CodeEditor, type CodeEditorHandle } from './code-editor.js';
import { ParamsPreview } from './params-preview.js';
import { readStrategyMeta } from './read-strategy-meta.js';
import { SourceProblems } from './source-problems.js';

export interface StrategyFormValues {
  name: string;
  description: string;
  source: string;
  marketType: 'LINEAR' | 'SPOT';
}

interface StrategyFormProps {
  initial: StrategyFormValues;
  /** A new strategy chooses its market type; a stored one keeps it. */
  isNew: boolean;
  /** Saves; resolves with what to announce ("Saved version 2"), throws what the client threw. */
  onSave(values: StrategyFormValues): Promise<string>;
}

/** Name, description and source of a strategy, saved to the service; its problems shown at their place. */
export function StrategyForm({ initial, isNew, onSave }: StrategyFormProps) {
  const [values, setValues] = useState(initial);
  const [notice, setNotice] = useState('');
  // the problems stay marked in the editor while it saves again (no blink)
  const save = useAction({ keepError: true });
  const { error, busy: saving } = save;
  const editor = useRef<CodeEditorHandle>(null);
  const meta = useMemo(() => readStrategyMeta(values.source), [values.source]);
  const set = <K extends keyof StrategyFormValues>(key: K, value: StrategyFormValues[K]) => setValues((v) => ({ ...v, [key]: value }));
  const problems = error?.source ?? [];

  async function submit(event: FormEvent) {
    event.preventDefault();
    setNotice('');
    await save.run(async () => setNotice(await onSave(values)));
  }

  return (
    <form className="strategy-form" onSubmit={submit} noValidate>
      <ErrorBanner error={error} title="The strategy was not saved" />
      <div className="form-row">
        <FormField id="strategy-name" label="Name" errors={error?.fields.name} grow>
          {(describedBy, invalid) => (
            <input
              id="strategy-name"
              required
              maxLength={200}
              value={values.name}
              onChange={(e) => set('name', e.target.value)}
              aria-invalid={invalid}
              aria-describedby={describedBy}
            />
          )}
        </FormField>
        {isNew ? (
          <div className="field">
            <label htmlFor="strategy-market">Market</label>
            <select id="strategy-market" value={values.marketType} onChange={(e) => set('marketType', e.target.value as StrategyFormValues['marketType'])}>
              <option value="LINEAR">Perpetual (LINEAR)</option>
              <option value="SPOT">Spot</option>
            </select>
          </div>
        ) : null}
      </div>
      <FormField id="strategy-description" label="Description" errors={error?.fields.description}>
        {(describedBy, invalid) => (
          <textarea
            id="strategy-description"
            rows={2}
            maxLength={10_000}
            value={values.description}
            onChange={(e) => set('description', e.target.value)}
            aria-invalid={invalid}
            aria-describedby={describedBy}
          />
        )}
      </FormField>
      <div className="field">
        <span className="label" id="strategy-source-label">
          Source (JavaScript or TypeScript)
        </span>
        <CodeEditor
          ref={editor}
          value={values.source}
          onChange={(source) => set('source', source)}
          problems={problems}
          labelledBy="strategy-source-label"
          describedBy={problems.length ? 'strategy-source-problems' : undefined}
        />
        <FieldError id="strategy-source-error" messages={error?.fields.source} />
        <SourceProblems id="strategy-source-problems" problems={problems} onJump={(line, column) => editor.current?.focusAt(line, column)} />
      </div>
      <div className="actions">
        <button type="submit" className="primary" disabled={saving}>
          {saving ? 'Saving…' : isNew ? 'Create strategy' : 'Save'}
        </button>
        <output className="notice" aria-live="polite">
          {notice}
        </output>
      </div>
      <ParamsPreview meta={meta} />
    </form>
  );
}

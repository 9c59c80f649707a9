import { type FormEvent, useMemo, useRef, useState } from 'react';
import { ErrorBanner } from '../ui/error-banner.js';
import { FieldError } from '../ui/field-error.js';
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
  const described = (name: string) => (error?.fields[name] ? `strategy-${name}-error` : undefined);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setNotice('');
    await save.run(async () => setNotice(await onSave(values)));
  }

  return (
    <form className="strategy-form" onSubmit={submit} noValidate>
      <ErrorBanner error={error} title="The strategy was not saved" />
      <div className="form-row">
        <div className="field grow">
          <label htmlFor="strategy-name">Name</label>
          <input
            id="strategy-name"
            required
            maxLength={200}
            value={values.name}
            onChange={(e) => set('name', e.target.value)}
            aria-invalid={Boolean(error?.fields.name)}
            aria-describedby={described('name')}
          />
          <FieldError id="strategy-name-error" messages={error?.fields.name} />
        </div>
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
      <div className="field">
        <label htmlFor="strategy-description">Description</label>
        <textarea
          id="strategy-description"
          rows={2}
          maxLength={10_000}
          value={values.description}
          onChange={(e) => set('description', e.target.value)}
          aria-describedby={described('description')}
        />
        <FieldError id="strategy-description-error" messages={error?.fields.description} />
      </div>
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

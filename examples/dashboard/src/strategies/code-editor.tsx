import { javascript } from '@codemirror/lang-javascript';
import { lintGutter, setDiagnostics } from '@codemirror/lint';
import { EditorView, basicSetup } from 'codemirror';
import { type Ref, useEffect, useImperativeHandle, useRef } from 'react';
import type { SourceProblem } from '../ui/describe-error.js';
import { sourceDiagnostics } from './source-diagnostics.js';

/** What a page can ask of the editor. */
export interface CodeEditorHandle {
  /** Puts the cursor at a 1-based line and column and focuses the editor. */
  focusAt(line: number, column?: number): void;
}

interface CodeEditorProps {
  value: string;
  onChange(value: string): void;
  /** The server's problems with the source as it was saved: marked in the text and the gutter. */
  problems: SourceProblem[];
  /** The id of the visible label, and of what describes the editor (its problems). */
  labelledBy: string;
  describedBy?: string;
  ref?: Ref<CodeEditorHandle>;
}

/**
 * CodeMirror 6 with JavaScript/TypeScript highlighting and a lint gutter for the server's
 * problems. Tab is not bound to indent (CodeMirror's default), so it moves focus on as
 * everywhere else on the page.
 */
export function CodeEditor({ value, onChange, problems, labelledBy, describedBy, ref }: CodeEditorProps) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  const changed = useRef(onChange);
  changed.current = onChange;

  // biome-ignore lint/correctness/useExhaustiveDependencies: the view is made once; `value` updates it below
  useEffect(() => {
    const editor = new EditorView({
      parent: host.current!,
      doc: value,
      extensions: [
        basicSetup,
        javascript({ typescript: true }),
        lintGutter(),
        // tabindex: the text is focusable already (contenteditable); axe counts the scrolling editor reachable by keyboard only with it
        EditorView.contentAttributes.of({ tabindex: '0', 'aria-labelledby': labelledBy, ...(describedBy ? { 'aria-describedby': describedBy } : {}) }),
        EditorView.updateListener.of((update) => {
          if (update.docChanged) changed.current(update.state.doc.toString());
        }),
      ],
    });
    view.current = editor;
    return () => {
      editor.destroy();
      view.current = null;
    };
  }, []);

  useEffect(() => {
    const editor = view.current;
    if (editor && editor.state.doc.toString() !== value) {
      editor.dispatch({ changes: { from: 0, to: editor.state.doc.length, insert: value } });
    }
  }, [value]);

  useEffect(() => {
    const editor = view.current;
    if (editor) editor.dispatch(setDiagnostics(editor.state, sourceDiagnostics(editor.state.doc, problems)));
  }, [problems]);

  useImperativeHandle(ref, () => ({
    focusAt(line, column = 1) {
      const editor = view.current;
      if (!editor) return;
      const target = editor.state.doc.line(Math.min(Math.max(1, line), editor.state.doc.lines));
      const anchor = Math.min(target.from + column - 1, target.to);
      editor.dispatch({ selection: { anchor }, effects: EditorView.scrollIntoView(anchor, { y: 'center' }) });
      editor.focus();
    },
  }));

  return <div className="code-editor" ref={host} />;
}

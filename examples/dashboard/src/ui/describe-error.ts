import { isStratboxClientError } from '@stratbox/client';

/** A problem with the strategy source (syntax, exports, `meta`), with a 1-based line and column when the server knows them. */
export interface SourceProblem {
  /** `source`, or the path in `meta` (`meta.params.fast`). */
  path: string;
  message: string;
  line?: number;
  column?: number;
}

/** An error as the dashboard shows it: code and message, the problems of each form field, and those of the source. */
export interface ErrorView {
  code: string;
  message: string;
  status: number;
  /** Problems by field path, without the request part: `startDate`, `fees.maker`, `params.fast`. */
  fields: Record<string, string[]>;
  /** Problems of the strategy source: `path` is `source` or starts with `meta`. */
  source: SourceProblem[];
}

const HINTS: Partial<Record<string, string>> = {
  UNAUTHENTICATED: 'The API key was not accepted: sign in again with a valid key.',
  RATE_LIMITED: 'Too many requests: wait a moment and try again.',
  PLAN_LIMIT_EXCEEDED: 'Your plan does not allow this.',
};

/** `body.startDate` to `startDate`: the request part goes, the field stays (`params.fast` is a strategy parameter). */
function fieldPath(path: string): string {
  return path.replace(/^(body|query)\./, '');
}

/** What to show for anything a call threw: a `StratboxClientError` keeps its code, message and detailed problems. */
export function describeError(error: unknown): ErrorView {
  if (!isStratboxClientError(error)) {
    const message = error instanceof Error ? error.message : String(error);
    return { code: 'ERROR', message, status: 0, fields: {}, source: [] };
  }
  const view: ErrorView = { code: error.code, message: error.message, status: error.status, fields: {}, source: [] };
  const hint = HINTS[error.code];
  if (hint && !view.message.includes(hint)) view.message = `${view.message} ${hint}`;
  if (!Array.isArray(error.details)) return view;
  for (const item of error.details) {
    if (!item || typeof item !== 'object') continue;
    const { path, message, line, column } = item as Record<string, unknown>;
    if (typeof path !== 'string' || typeof message !== 'string') continue;
    const name = fieldPath(path);
    if (name === 'source' || name === 'meta' || name.startsWith('meta.')) {
      view.source.push({ path: name, message, ...(typeof line === 'number' ? { line } : {}), ...(typeof column === 'number' ? { column } : {}) });
    } else {
      (view.fields[name] ??= []).push(message);
    }
  }
  return view;
}

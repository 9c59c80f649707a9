import type { ErrorView } from './describe-error.js';

/** An error as a person reads it: the API's code, then its message (announced to screen readers). */
export function ErrorBanner({ error, title }: { error: ErrorView | null; title?: string }) {
  if (!error) return null;
  return (
    <div className="error-banner" role="alert">
      {title ? <p className="error-title">{title}</p> : null}
      <p>
        <code className="error-code">{error.code}</code> {error.message}
      </p>
    </div>
  );
}

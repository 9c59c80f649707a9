import { ErrorBanner } from './error-banner.js';
import type { ErrorView } from './describe-error.js';
import { Loading } from './loading.js';

/** A record's page before its record is there: its title, then why it is not (loading, or the error). */
export function RecordPlaceholder({ title, error, loading, what }: { title: string; error: ErrorView | null; loading: boolean; what: string }) {
  return (
    <section>
      <h1>{title}</h1>
      <ErrorBanner error={error} title={`Could not load the ${what}`} />
      {loading ? <Loading label={`Loading the ${what}…`} /> : null}
    </section>
  );
}

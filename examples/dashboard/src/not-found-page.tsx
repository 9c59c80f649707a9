import { Link } from './routing/link.js';

/** An address the dashboard has no page for. */
export function NotFoundPage({ path }: { path: string }) {
  return (
    <section>
      <h1>Page not found</h1>
      <p>
        There is no page at <code>{path}</code>. <Link to={{ name: 'strategies' }}>Go to your strategies</Link>.
      </p>
    </section>
  );
}

import { navigate } from '../routing/navigate.js';
import { routePath } from '../routing/route.js';
import { useClient } from '../session/session-context.js';
import { DEFAULT_SOURCE } from './default-source.js';
import { StrategyForm } from './strategy-form.js';

/** A new strategy, from a working example; saved, it opens as a stored strategy. */
export function StrategyNewPage() {
  const client = useClient();
  return (
    <section>
      <h1>New strategy</h1>
      <StrategyForm
        isNew
        initial={{ name: '', description: '', source: DEFAULT_SOURCE, marketType: 'LINEAR' }}
        onSave={async (values) => {
          const created = await client.strategies.create({ body: values });
          navigate(routePath({ name: 'strategy', id: created.id }));
          return `Created ${created.name}`;
        }}
      />
    </section>
  );
}

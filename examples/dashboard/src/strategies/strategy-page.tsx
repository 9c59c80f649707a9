import { Link } from '../routing/link.js';
import { useClient } from '../session/session-context.js';
import { RecordPlaceholder } from '../ui/record-placeholder.js';
import { useAsync } from '../ui/use-async.js';
import { StrategyForm } from './strategy-form.js';
import { VersionHistory } from './version-history.js';

/** One stored strategy: its editor, its version history, and the way to backtest it. */
export function StrategyPage({ id }: { id: string }) {
  const client = useClient();
  const strategy = useAsync(`strategy:${id}`, (signal) => client.strategies.get({ params: { id } }, { signal }));
  const detail = strategy.data;

  if (!detail) return <RecordPlaceholder title="Strategy" what="strategy" error={strategy.error} loading={strategy.loading} />;
  return (
    <section>
      <div className="page-header">
        <div>
          <h1>{detail.name}</h1>
          <p className="muted">
            {detail.marketType} · version {detail.version} · <code>{detail.id}</code>
          </p>
        </div>
        <div className="actions">
          <Link className="button" to={{ name: 'backtests', strategyId: id }}>
            Its backtests
          </Link>
          <Link className="button" to={{ name: 'newOptimization', strategyId: id }}>
            Optimize
          </Link>
          <Link className="button primary" to={{ name: 'newBacktest', strategyId: id }}>
            Run a backtest
          </Link>
        </div>
      </div>
      <StrategyForm
        isNew={false}
        initial={{ name: detail.name, description: detail.description, source: detail.source, marketType: detail.marketType }}
        onSave={async ({ name, description, source }) => {
          const saved = await client.strategies.update({ params: { id }, body: { name, description, source } });
          const changed = saved.version !== detail.version;
          strategy.setData(saved);
          return changed ? `Saved version ${saved.version}` : `Saved; the source did not change, so it stays version ${saved.version}`;
        }}
      />
      <VersionHistory key={detail.version} strategyId={id} versions={detail.versions} />
    </section>
  );
}

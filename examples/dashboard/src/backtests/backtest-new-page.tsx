import { useState } from 'react';
import { useStrategyMeta } from '../strategies/use-strategy-meta.js';
import { useBoughtListings } from '../marketplace/use-bought-listings.js';
import { navigate } from '../routing/navigate.js';
import { routePath } from '../routing/route.js';
import { useClient } from '../session/session-context.js';
import { EmptyState } from '../ui/empty-state.js';
import { ErrorBanner } from '../ui/error-banner.js';
import { Loading } from '../ui/loading.js';
import { useAction } from '../ui/use-action.js';
import { useAsync } from '../ui/use-async.js';
import { Link } from '../routing/link.js';
import { BacktestForm } from './backtest-form.js';
import { backtestBody, type BacktestFormValues, initialBacktestValues } from './backtest-form-values.js';

/** Starts a backtest; the page of the queued run follows its progress. */
export function BacktestNewPage({ strategyId }: { strategyId: string | undefined }) {
  const client = useClient();
  const strategies = useAsync('strategies:all', (signal) => client.strategies.list({ query: { limit: 200 } }, { signal }));
  const bought = useBoughtListings();
  const [values, setValues] = useState<BacktestFormValues>(() => initialBacktestValues(strategyId ?? '', {}));
  const create = useAction();

  // the chosen strategy's meta: its parameters become fields, their defaults the values (a bought one's source stays unread)
  const { meta, error: metaError } = useStrategyMeta(values.strategyId, (read) =>
    setValues((v) => ({ ...v, params: initialBacktestValues(v.strategyId, read.params).params })),
  );

  const submit = () =>
    create.run(async () => {
      const created = await client.backtests.create({ body: backtestBody(values) });
      navigate(routePath({ name: 'backtest', id: created.id }));
    });

  const list = strategies.data?.strategies;
  const listings = bought.data;
  return (
    <section>
      <h1>New backtest</h1>
      <ErrorBanner error={strategies.error} title="Could not load your strategies" />
      <ErrorBanner error={bought.error} title="Could not load your purchases" />
      <ErrorBanner error={metaError} title="Could not read the strategy’s parameters" />
      {(!list || !listings) && (strategies.loading || bought.loading) ? <Loading label="Loading your strategies…" /> : null}
      {list && listings && list.length === 0 && listings.length === 0 ? (
        <EmptyState title="No strategy to test yet">
          <p>
            <Link to={{ name: 'newStrategy' }}>Create a strategy</Link> or <Link to={{ name: 'marketplace' }}>buy one</Link> first.
          </p>
        </EmptyState>
      ) : null}
      {list && listings && (list.length > 0 || listings.length > 0) ? (
        <BacktestForm
          strategies={list}
          bought={listings}
          values={values}
          onChange={setValues}
          meta={meta}
          error={create.error}
          submitting={create.busy}
          onSubmit={submit}
        />
      ) : null}
    </section>
  );
}

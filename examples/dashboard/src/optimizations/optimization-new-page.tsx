import { useState } from 'react';
import { useBoughtListings } from '../marketplace/use-bought-listings.js';
import { Link } from '../routing/link.js';
import { navigate } from '../routing/navigate.js';
import { routePath } from '../routing/route.js';
import { useClient } from '../session/session-context.js';
import { useStrategyMeta } from '../strategies/use-strategy-meta.js';
import { EmptyState } from '../ui/empty-state.js';
import { ErrorBanner } from '../ui/error-banner.js';
import { Loading } from '../ui/loading.js';
import { useAction } from '../ui/use-action.js';
import { useAsync } from '../ui/use-async.js';
import { OptimizationForm } from './optimization-form.js';
import { readableTrialCap } from './trial-cap.js';
import { initialOptimizationValues, type OptimizationFormValues, optimizationBody } from './optimization-form-values.js';

/** Starts an optimization; its page follows the progress. */
export function OptimizationNewPage({ strategyId }: { strategyId: string | undefined }) {
  const client = useClient();
  const strategies = useAsync('strategies:all', (signal) => client.strategies.list({ query: { limit: 200 } }, { signal }));
  const bought = useBoughtListings();
  const [values, setValues] = useState<OptimizationFormValues>(() => initialOptimizationValues(strategyId ?? '', {}));
  const create = useAction({ keepError: true });

  // the chosen strategy's parameters: each starts fixed at its default, ready to be searched
  const { meta, error: metaError } = useStrategyMeta(values.run.strategyId, (read) =>
    setValues((v) => {
      const fresh = initialOptimizationValues(v.run.strategyId, read.params, read.unreadable);
      return { ...v, run: { ...v.run, params: fresh.run.params }, choices: fresh.choices };
    }),
  );
  const change = (next: OptimizationFormValues) =>
    // another strategy: its parameters replace the last one's once read (none for a bought one until named)
    setValues(next.run.strategyId === values.run.strategyId ? next : { ...next, run: { ...next.run, params: {} }, choices: {} });

  const submit = () =>
    create.run(async () => {
      const created = await client.optimizations.create({ body: optimizationBody(values, meta?.params ?? {}) }).catch((error: unknown) => {
        throw readableTrialCap(error);
      });
      navigate(routePath({ name: 'optimization', id: created.id }));
    });

  const list = strategies.data?.strategies;
  const listings = bought.data;
  return (
    <section>
      <h1>New optimization</h1>
      <p className="muted">
        Runs the strategy once per parameter set (a trial), ranks the trials by the objective and says how far the winner can be trusted: sensitivity around it,
        validation out of sample, the Deflated Sharpe Ratio and the Probability of Backtest Overfitting.
      </p>
      <ErrorBanner error={strategies.error} title="Could not load your strategies" />
      <ErrorBanner error={bought.error} title="Could not load your purchases" />
      <ErrorBanner error={metaError} title="Could not read the strategy’s parameters" />
      {(!list || !listings) && (strategies.loading || bought.loading) ? <Loading label="Loading your strategies…" /> : null}
      {list && listings && list.length === 0 && listings.length === 0 ? (
        <EmptyState title="No strategy to optimize yet">
          <p>
            <Link to={{ name: 'newStrategy' }}>Create a strategy</Link> or <Link to={{ name: 'marketplace' }}>buy one</Link> first.
          </p>
        </EmptyState>
      ) : null}
      {list && listings && (list.length > 0 || listings.length > 0) ? (
        <OptimizationForm
          strategies={list}
          bought={listings}
          values={values}
          onChange={change}
          meta={meta}
          error={create.error}
          submitting={create.busy}
          onSubmit={submit}
        />
      ) : null}
    </section>
  );
}

import { useState } from 'react';
import { RunStrategies } from '../backtests/run-strategies.js';
import { navigate } from '../routing/navigate.js';
import { routePath } from '../routing/route.js';
import { useClient } from '../session/session-context.js';
import { useStrategyMeta } from '../strategies/use-strategy-meta.js';
import { useAction } from '../ui/use-action.js';
import { OptimizationForm } from './optimization-form.js';
import { initialOptimizationValues, type OptimizationFormValues, optimizationBody } from './optimization-form-values.js';
import { readableTrialCap } from './trial-cap.js';

/** Starts an optimization; its page follows the progress. */
export function OptimizationNewPage({ strategyId }: { strategyId?: string }) {
  const client = useClient();
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

  return (
    <section>
      <h1>New optimization</h1>
      <p className="muted">
        Runs the strategy once per parameter set (a trial), ranks the trials by the objective and says how far the winner can be trusted: sensitivity around it,
        validation out of sample, the Deflated Sharpe Ratio and the Probability of Backtest Overfitting.
      </p>
      <RunStrategies emptyTitle="No strategy to optimize yet" metaError={metaError}>
        {(strategies, bought) => (
          <OptimizationForm
            strategies={strategies}
            bought={bought}
            values={values}
            onChange={change}
            meta={meta}
            error={create.error}
            submitting={create.busy}
            onSubmit={submit}
          />
        )}
      </RunStrategies>
    </section>
  );
}

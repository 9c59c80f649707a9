import { useState } from 'react';
import { navigate } from '../routing/navigate.js';
import { routePath } from '../routing/route.js';
import { useClient } from '../session/session-context.js';
import { useStrategyMeta } from '../strategies/use-strategy-meta.js';
import { useAction } from '../ui/use-action.js';
import { BacktestForm } from './backtest-form.js';
import { backtestBody, type BacktestFormValues, initialBacktestValues } from './backtest-form-values.js';
import { RunStrategies } from './run-strategies.js';

/** Starts a backtest; the page of the queued run follows its progress. */
export function BacktestNewPage({ strategyId }: { strategyId?: string }) {
  const client = useClient();
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

  return (
    <section>
      <h1>New backtest</h1>
      <RunStrategies emptyTitle="No strategy to test yet" metaError={metaError}>
        {(strategies, bought) => (
          <BacktestForm
            strategies={strategies}
            bought={bought}
            values={values}
            onChange={setValues}
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

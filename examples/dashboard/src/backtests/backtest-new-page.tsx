import { useEffect, useState } from 'react';
import { navigate } from '../routing/navigate.js';
import { routePath } from '../routing/route.js';
import { useClient } from '../session/session-context.js';
import { readStrategyMeta, type StrategyMetaView } from '../strategies/read-strategy-meta.js';
import { describeError, type ErrorView } from '../ui/describe-error.js';
import { EmptyState } from '../ui/empty-state.js';
import { ErrorBanner } from '../ui/error-banner.js';
import { Loading } from '../ui/loading.js';
import { useAsync } from '../ui/use-async.js';
import { Link } from '../routing/link.js';
import { BacktestForm } from './backtest-form.js';
import { backtestBody, type BacktestFormValues, initialBacktestValues } from './backtest-form-values.js';

/** Starts a backtest; the page of the queued run follows its progress. */
export function BacktestNewPage({ strategyId }: { strategyId: string | undefined }) {
  const client = useClient();
  const strategies = useAsync('strategies:all', (signal) => client.strategies.list({ query: { limit: 200 } }, { signal }));
  const [values, setValues] = useState<BacktestFormValues>(() => initialBacktestValues(strategyId ?? '', {}));
  const [meta, setMeta] = useState<StrategyMetaView | null>(null);
  const [error, setError] = useState<ErrorView | null>(null);
  const [submitting, setSubmitting] = useState(false);

  // the chosen strategy's meta: its parameters become fields, their defaults the values
  useEffect(() => {
    setMeta(null);
    if (!values.strategyId) return;
    const controller = new AbortController();
    client.strategies.get({ params: { id: values.strategyId } }, { signal: controller.signal }).then(
      (detail) => {
        const read = readStrategyMeta(detail.source);
        setMeta(read);
        setValues((v) => ({ ...v, params: initialBacktestValues(v.strategyId, read.params).params }));
      },
      (caught: unknown) => {
        if (!controller.signal.aborted) setError(describeError(caught));
      },
    );
    return () => controller.abort();
  }, [client, values.strategyId]);

  async function submit() {
    setSubmitting(true);
    setError(null);
    try {
      const created = await client.backtests.create({ body: backtestBody(values) });
      navigate(routePath({ name: 'backtest', id: created.id }));
    } catch (caught) {
      setError(describeError(caught));
      setSubmitting(false);
    }
  }

  const list = strategies.data?.strategies;
  return (
    <section>
      <h1>New backtest</h1>
      <ErrorBanner error={strategies.error} title="Could not load your strategies" />
      {!list && strategies.loading ? <Loading label="Loading your strategies…" /> : null}
      {list && list.length === 0 ? (
        <EmptyState title="No strategy to test yet">
          <p>
            <Link to={{ name: 'newStrategy' }}>Create a strategy</Link> first.
          </p>
        </EmptyState>
      ) : null}
      {list && list.length > 0 ? (
        <BacktestForm strategies={list} values={values} onChange={setValues} meta={meta} error={error} submitting={submitting} onSubmit={submit} />
      ) : null}
    </section>
  );
}

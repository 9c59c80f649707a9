import { useState } from 'react';
import { navigate } from '../routing/navigate.js';
import { routePath } from '../routing/route.js';
import { useClient } from '../session/session-context.js';
import { ErrorBanner } from '../ui/error-banner.js';
import { Loading } from '../ui/loading.js';
import { useAction } from '../ui/use-action.js';
import { useAsync } from '../ui/use-async.js';
import { RunStrategies } from '../backtests/run-strategies.js';
import { DeploymentForm } from './deployment-form.js';
import { type DeploymentFormValues, defaultCredential, deploymentBody, initialDeploymentValues, paramDefaults } from './deployment-form-values.js';
import { PaperCredentialForm } from './paper-credential-form.js';
import { useStrategyMeta } from '../strategies/use-strategy-meta.js';

/** Deploys a strategy (own or bought) on an exchange account, paper unless another is chosen; then opens the deployment. */
export function DeploymentNewPage({ strategyId }: { strategyId?: string }) {
  const client = useClient();
  const [values, setValues] = useState<DeploymentFormValues>(() => initialDeploymentValues(strategyId ?? '', ''));
  const credentials = useAsync('credentials:all', async (signal) => {
    const page = await client.credentials.list({ query: { limit: 200 } }, { signal });
    setValues((v) => (v.credentialId ? v : { ...v, credentialId: defaultCredential(page.credentials) }));
    return page.credentials;
  });
  const { meta, error: metaError } = useStrategyMeta(values.strategyId, (read) => setValues((v) => ({ ...v, params: paramDefaults(read.params) })));
  const create = useAction();
  const submit = () =>
    create.run(async () => {
      const exchange = credentials.data?.find((c) => c.id === values.credentialId)?.exchange;
      const created = await client.deployments.create({ body: deploymentBody(values, exchange) });
      navigate(routePath({ name: 'deployment', id: created.id }));
    });

  const accounts = credentials.data;
  return (
    <section>
      <h1>New deployment</h1>
      <ErrorBanner error={credentials.error} title="Could not load your exchange accounts" />
      <RunStrategies emptyTitle="No strategy to deploy yet" metaError={metaError}>
        {(strategies, bought) =>
          accounts ? (
            <>
              {accounts.length === 0 ? (
                <PaperCredentialForm
                  onCreated={(credential) => {
                    credentials.setData([credential]);
                    setValues((v) => ({ ...v, credentialId: credential.id }));
                  }}
                />
              ) : null}
              <DeploymentForm
                strategies={strategies}
                bought={bought}
                credentials={accounts}
                values={values}
                onChange={setValues}
                meta={meta}
                error={create.error}
                submitting={create.busy}
                onSubmit={submit}
              />
            </>
          ) : credentials.loading ? (
            <Loading label="Loading your exchange accounts…" />
          ) : null
        }
      </RunStrategies>
    </section>
  );
}

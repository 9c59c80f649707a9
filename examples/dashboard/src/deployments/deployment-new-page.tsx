import { useState } from 'react';
import { useBoughtListings } from '../marketplace/use-bought-listings.js';
import { Link } from '../routing/link.js';
import { navigate } from '../routing/navigate.js';
import { routePath } from '../routing/route.js';
import { useClient } from '../session/session-context.js';
import { EmptyState } from '../ui/empty-state.js';
import { ErrorBanner } from '../ui/error-banner.js';
import { Loading } from '../ui/loading.js';
import { useAction } from '../ui/use-action.js';
import { useAsync } from '../ui/use-async.js';
import { useOwnStrategies } from '../strategies/use-own-strategies.js';
import { DeploymentForm } from './deployment-form.js';
import { type DeploymentFormValues, defaultCredential, deploymentBody, initialDeploymentValues, paramDefaults } from './deployment-form-values.js';
import { PaperCredentialForm } from './paper-credential-form.js';
import { useStrategyMeta } from '../strategies/use-strategy-meta.js';

/** Deploys a strategy (own or bought) on an exchange account, paper unless another is chosen; then opens the deployment. */
export function DeploymentNewPage({ strategyId }: { strategyId: string | undefined }) {
  const client = useClient();
  const strategies = useOwnStrategies();
  const bought = useBoughtListings();
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
      const created = await client.deployments.create({ body: deploymentBody(values) });
      navigate(routePath({ name: 'deployment', id: created.id }));
    });

  const own = strategies.data;
  const listings = bought.data;
  const accounts = credentials.data;
  const ready = own && listings && accounts;
  return (
    <section>
      <h1>New deployment</h1>
      <ErrorBanner error={strategies.error} title="Could not load your strategies" />
      <ErrorBanner error={bought.error} title="Could not load your purchases" />
      <ErrorBanner error={credentials.error} title="Could not load your exchange accounts" />
      <ErrorBanner error={metaError} title="Could not read the strategy’s parameters" />
      {!ready && (strategies.loading || bought.loading || credentials.loading) ? <Loading label="Loading your strategies and accounts…" /> : null}
      {ready && own.length === 0 && listings.length === 0 ? (
        <EmptyState title="No strategy to deploy yet">
          <p>
            <Link to={{ name: 'newStrategy' }}>Create a strategy</Link> or <Link to={{ name: 'marketplace' }}>buy one on the marketplace</Link> first.
          </p>
        </EmptyState>
      ) : null}
      {ready && (own.length > 0 || listings.length > 0) ? (
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
            strategies={own}
            bought={listings}
            credentials={accounts}
            values={values}
            onChange={setValues}
            meta={meta}
            error={create.error}
            submitting={create.busy}
            onSubmit={submit}
          />
        </>
      ) : null}
    </section>
  );
}

import type { StrategySummary } from '@stratbox/client';
import { useClient } from '../session/session-context.js';
import { type AsyncState, useAsync } from '../ui/use-async.js';

/** How many of the user's strategies the pages read for names and choices (the API's page cap). */
export const OWN_STRATEGIES_LIMIT = 200;

/**
 * The user's strategies, the first {@link OWN_STRATEGIES_LIMIT} of them: the choices of the
 * backtest, deployment and listing forms, and the names the run pages show. A strategy past that
 * many is shown by its id.
 */
export function useOwnStrategies(): AsyncState<StrategySummary[]> {
  const client = useClient();
  return useAsync('strategies:own', async (signal) => {
    const { strategies } = await client.strategies.list({ query: { limit: OWN_STRATEGIES_LIMIT } }, { signal });
    return strategies;
  });
}

import { useEffect, useRef, useState } from 'react';
import { isListingId } from '../marketplace/strategy-options.js';
import { useClient } from '../session/session-context.js';
import { readStrategyMeta, type StrategyMetaView } from './read-strategy-meta.js';
import { describeError, type ErrorView } from '../ui/describe-error.js';

/**
 * The `meta` of one of the user's strategies, read from its source, and `onRead` called with it
 * (to fill the parameters' defaults). Null while it loads, when none is chosen, and for a listing
 * id: a bought strategy's source is never fetched (the API would not give it anyway).
 */
export function useStrategyMeta(strategyId: string, onRead: (meta: StrategyMetaView) => void): { meta: StrategyMetaView | null; error: ErrorView | null } {
  const client = useClient();
  const [state, setState] = useState<{ meta: StrategyMetaView | null; error: ErrorView | null }>({ meta: null, error: null });
  const read = useRef(onRead);
  read.current = onRead;
  useEffect(() => {
    setState({ meta: null, error: null });
    if (!strategyId || isListingId(strategyId)) return;
    const controller = new AbortController();
    client.strategies.get({ params: { id: strategyId } }, { signal: controller.signal }).then(
      (detail) => {
        const meta = readStrategyMeta(detail.source);
        setState({ meta, error: null });
        read.current(meta);
      },
      (caught: unknown) => {
        if (!controller.signal.aborted) setState({ meta: null, error: describeError(caught) });
      },
    );
    return () => controller.abort();
  }, [client, strategyId]);
  return state;
}

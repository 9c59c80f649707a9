import { useMemo, useSyncExternalStore } from 'react';
import { onNavigate } from './navigate.js';
import { parseRoute, type Route } from './route.js';

const address = () => window.location.pathname + window.location.search;

/** The current page, updated on every navigation. */
export function useRoute(): Route {
  const current = useSyncExternalStore(onNavigate, address);
  return useMemo(() => {
    const url = new URL(current, window.location.origin);
    return parseRoute(url.pathname, url.search);
  }, [current]);
}

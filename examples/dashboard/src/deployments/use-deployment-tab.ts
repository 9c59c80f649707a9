import { useCallback, useState } from 'react';

/** The views of a deployment's page. */
export type DeploymentTab = 'overview' | 'drift';

const readTab = (): DeploymentTab => (window.location.hash === '#drift' ? 'drift' : 'overview');

/**
 * The deployment page's selected view, kept in the address's fragment (`#drift`) so that a reload
 * or a shared link opens the same view; changing it replaces the history entry (no new page).
 */
export function useDeploymentTab(): [DeploymentTab, (tab: DeploymentTab) => void] {
  const [tab, setTab] = useState(readTab);
  const select = useCallback((next: DeploymentTab) => {
    setTab(next);
    const { pathname, search } = window.location;
    window.history.replaceState(window.history.state, '', `${pathname}${search}${next === 'drift' ? '#drift' : ''}`);
  }, []);
  return [tab, select];
}

import { Link } from './routing/link.js';
import type { Route } from './routing/route.js';
import { NotificationBell } from './notifications/notification-bell.js';
import { useSession } from './session/session-context.js';

const SECTIONS = [
  { label: 'Strategies', to: { name: 'strategies' }, names: ['strategies', 'newStrategy', 'strategy'] },
  { label: 'Backtests', to: { name: 'backtests' }, names: ['backtests', 'newBacktest', 'backtest', 'compareBacktests'] },
  { label: 'Optimizations', to: { name: 'optimizations' }, names: ['optimizations', 'newOptimization', 'optimization'] },
  { label: 'Deployments', to: { name: 'deployments' }, names: ['deployments', 'newDeployment', 'deployment'] },
  { label: 'Marketplace', to: { name: 'marketplace' }, names: ['marketplace', 'myListings', 'purchases', 'listing'] },
  { label: 'Billing', to: { name: 'billing' }, names: ['billing'] },
  { label: 'Notifications', to: { name: 'notifications' }, names: ['notifications'] },
] as const satisfies ReadonlyArray<{ label: string; to: Route; names: readonly Route['name'][] }>;

/** The top bar: the sections, the unread-events bell, the service signed in to, and sign-out. */
export function NavBar({ route }: { route: Route }) {
  const { session, signOut } = useSession();
  return (
    <header className="nav-bar">
      <nav aria-label="Main">
        <span className="brand">Stratbox</span>
        <ul>
          {SECTIONS.map((section) => (
            <li key={section.label}>
              <Link to={section.to} aria-current={(section.names as readonly string[]).includes(route.name) ? 'page' : undefined}>
                {section.label}
              </Link>
            </li>
          ))}
        </ul>
      </nav>
      <div className="nav-session">
        <NotificationBell />
        <span className="muted" title="The service this tab is signed in to">
          {session?.baseUrl}
        </span>
        <button type="button" onClick={signOut} title={`Signed in to ${session?.baseUrl ?? ''}`}>
          Sign out
        </button>
      </div>
    </header>
  );
}

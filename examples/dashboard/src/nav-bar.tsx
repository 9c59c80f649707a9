import { Link } from './routing/link.js';
import { NAV_SECTIONS, type Route, sectionOf } from './routing/route.js';
import { NotificationBell } from './notifications/notification-bell.js';
import { useSession } from './session/session-context.js';

/** The top bar: the sections, the unread-events bell, the service signed in to, and sign-out. */
export function NavBar({ route }: { route: Route }) {
  const { session, signOut } = useSession();
  const current = sectionOf(route);
  return (
    <header className="nav-bar">
      <nav aria-label="Main">
        <span className="brand">Stratbox</span>
        <ul>
          {NAV_SECTIONS.map((section) => (
            <li key={section.name}>
              <Link to={{ name: section.name }} aria-current={section.name === current ? 'page' : undefined}>
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

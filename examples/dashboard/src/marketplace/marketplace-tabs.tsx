import { Link } from '../routing/link.js';
import type { Route } from '../routing/route.js';

const TABS = [
  { label: 'Browse', to: { name: 'marketplace' } },
  { label: 'My listings', to: { name: 'myListings' } },
  { label: 'My purchases', to: { name: 'purchases' } },
] as const satisfies ReadonlyArray<{ label: string; to: Route }>;

/** The marketplace's own pages, the current one marked. */
export function MarketplaceTabs({ current }: { current: Route['name'] }) {
  return (
    <nav className="sub-nav" aria-label="Marketplace">
      <ul>
        {TABS.map((tab) => (
          <li key={tab.label}>
            <Link to={tab.to} aria-current={tab.to.name === current ? 'page' : undefined}>
              {tab.label}
            </Link>
          </li>
        ))}
      </ul>
    </nav>
  );
}

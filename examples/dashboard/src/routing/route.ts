/** The pages of the dashboard, as the address bar names them. */
export type Route =
  | { name: 'strategies' }
  | { name: 'newStrategy' }
  | { name: 'strategy'; id: string }
  | { name: 'backtests'; strategyId?: string }
  | { name: 'newBacktest'; strategyId?: string }
  | { name: 'backtest'; id: string }
  | { name: 'deployments' }
  | { name: 'newDeployment'; strategyId?: string }
  | { name: 'deployment'; id: string }
  | { name: 'marketplace' }
  | { name: 'myListings' }
  | { name: 'purchases' }
  | { name: 'listing'; id: string }
  | { name: 'compareBacktests'; a: string; b: string }
  | { name: 'optimizations' }
  | { name: 'newOptimization'; strategyId?: string }
  | { name: 'optimization'; id: string }
  | { name: 'billing' }
  | { name: 'notifications' }
  | { name: 'notFound'; path: string };

const ID = '([A-Za-z0-9_-]{1,100})';
const PATTERNS: Array<[RegExp, (match: RegExpExecArray, search: URLSearchParams) => Route]> = [
  [/^\/(?:strategies)?$/, () => ({ name: 'strategies' })],
  [/^\/strategies\/new$/, () => ({ name: 'newStrategy' })],
  [new RegExp(`^/strategies/${ID}$`), (m) => ({ name: 'strategy', id: m[1]! })],
  [/^\/backtests$/, (_m, s) => withStrategy({ name: 'backtests' }, s)],
  [/^\/backtests\/new$/, (_m, s) => withStrategy({ name: 'newBacktest' }, s)],
  [/^\/backtests\/compare$/, (_m, s) => ({ name: 'compareBacktests', a: s.get('a') ?? '', b: s.get('b') ?? '' })],
  [new RegExp(`^/backtests/${ID}$`), (m) => ({ name: 'backtest', id: m[1]! })],
  [/^\/optimizations$/, () => ({ name: 'optimizations' })],
  [/^\/optimizations\/new$/, (_m, s) => withStrategy({ name: 'newOptimization' }, s)],
  [new RegExp(`^/optimizations/${ID}$`), (m) => ({ name: 'optimization', id: m[1]! })],
  [/^\/deployments$/, () => ({ name: 'deployments' })],
  [/^\/deployments\/new$/, (_m, s) => withStrategy({ name: 'newDeployment' }, s)],
  [new RegExp(`^/deployments/${ID}$`), (m) => ({ name: 'deployment', id: m[1]! })],
  [/^\/marketplace$/, () => ({ name: 'marketplace' })],
  [/^\/marketplace\/mine$/, () => ({ name: 'myListings' })],
  [/^\/marketplace\/purchases$/, () => ({ name: 'purchases' })],
  [new RegExp(`^/marketplace/${ID}$`), (m) => ({ name: 'listing', id: m[1]! })],
  [/^\/billing$/, () => ({ name: 'billing' })],
  [/^\/notifications$/, () => ({ name: 'notifications' })],
];

function withStrategy<R extends { name: 'backtests' | 'newBacktest' | 'newDeployment' | 'newOptimization' }>(
  route: R,
  search: URLSearchParams,
): R & { strategyId?: string } {
  const strategyId = search.get('strategyId');
  return strategyId ? { ...route, strategyId } : route;
}

/** The route of an address (`pathname` and `search` of `location`); `notFound` for any other path. */
export function parseRoute(pathname: string, search = ''): Route {
  const path = pathname.length > 1 ? pathname.replace(/\/+$/, '') : pathname;
  const params = new URLSearchParams(search);
  for (const [pattern, toRoute] of PATTERNS) {
    const match = pattern.exec(path);
    if (match) return toRoute(match, params);
  }
  return { name: 'notFound', path: pathname };
}

/** The address of a route: what links point at. */
export function routePath(route: Route): string {
  const query = (strategyId?: string) => (strategyId ? `?strategyId=${encodeURIComponent(strategyId)}` : '');
  switch (route.name) {
    case 'strategies':
      return '/strategies';
    case 'newStrategy':
      return '/strategies/new';
    case 'strategy':
      return `/strategies/${encodeURIComponent(route.id)}`;
    case 'backtests':
      return `/backtests${query(route.strategyId)}`;
    case 'newBacktest':
      return `/backtests/new${query(route.strategyId)}`;
    case 'backtest':
      return `/backtests/${encodeURIComponent(route.id)}`;
    case 'optimizations':
      return '/optimizations';
    case 'newOptimization':
      return `/optimizations/new${query(route.strategyId)}`;
    case 'optimization':
      return `/optimizations/${encodeURIComponent(route.id)}`;
    case 'deployments':
      return '/deployments';
    case 'newDeployment':
      return `/deployments/new${query(route.strategyId)}`;
    case 'deployment':
      return `/deployments/${encodeURIComponent(route.id)}`;
    case 'marketplace':
      return '/marketplace';
    case 'myListings':
      return '/marketplace/mine';
    case 'purchases':
      return '/marketplace/purchases';
    case 'listing':
      return `/marketplace/${encodeURIComponent(route.id)}`;
    case 'compareBacktests':
      return `/backtests/compare?a=${encodeURIComponent(route.a)}&b=${encodeURIComponent(route.b)}`;
    case 'billing':
      return '/billing';
    case 'notifications':
      return '/notifications';
    case 'notFound':
      return route.path;
  }
}

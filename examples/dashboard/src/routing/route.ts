/*
 * Every page's address, declared once: the router reads an address with it (`parseRoute`), links
 * write one with it (`routePath`), and the top bar takes its sections from it (`NAV_SECTIONS`).
 * A route's params are its path's `:name` segments and its query's names; `pages.ts` binds each
 * route to its page, which takes those params as props.
 */

/** A query parameter a route always writes (empty when missing) or only when set. */
type QueryParam = 'required' | 'optional';

interface RouteSpec {
  /** Literal segments and `:param` segments (an id: letters, digits, `_` and `-`, up to 100). */
  path: string;
  query?: Record<string, QueryParam>;
  /** The top bar's label of the section this route opens; the routes under its path belong to it. */
  nav?: string;
}

/** The routes, in the top bar's order of sections. Where a literal segment and a `:param` could both match, the literal wins. */
const ROUTES = {
  strategies: { path: '/strategies', nav: 'Strategies' },
  newStrategy: { path: '/strategies/new' },
  strategy: { path: '/strategies/:id' },
  backtests: { path: '/backtests', query: { strategyId: 'optional' }, nav: 'Backtests' },
  newBacktest: { path: '/backtests/new', query: { strategyId: 'optional' } },
  compareBacktests: { path: '/backtests/compare', query: { a: 'required', b: 'required' } },
  backtest: { path: '/backtests/:id' },
  optimizations: { path: '/optimizations', nav: 'Optimizations' },
  newOptimization: { path: '/optimizations/new', query: { strategyId: 'optional' } },
  optimization: { path: '/optimizations/:id' },
  deployments: { path: '/deployments', nav: 'Deployments' },
  newDeployment: { path: '/deployments/new', query: { strategyId: 'optional' } },
  deployment: { path: '/deployments/:id' },
  marketplace: { path: '/marketplace', nav: 'Marketplace' },
  myListings: { path: '/marketplace/mine' },
  purchases: { path: '/marketplace/purchases' },
  listing: { path: '/marketplace/:id' },
  billing: { path: '/billing', nav: 'Billing' },
  notifications: { path: '/notifications', nav: 'Notifications' },
} as const satisfies Record<string, RouteSpec>;

type Routes = typeof ROUTES;
/** The name of a page that has an address. */
export type RouteName = keyof Routes;
/** The page `/` opens. */
const HOME: RouteName = 'strategies';

type PathParams<P extends string> = P extends `${string}/:${infer Name}/${infer Rest}`
  ? Name | PathParams<`/${Rest}`>
  : P extends `${string}/:${infer Name}`
    ? Name
    : never;
type QueryOf<N extends RouteName> = Routes[N] extends { query: infer Q } ? Q : Record<never, QueryParam>;
type Flat<T> = { [K in keyof T]: T[K] };

/** What a page takes from its address: its path's params, its required query params, then its optional ones. */
export type RouteParams<N extends RouteName> = Flat<
  { [K in PathParams<Routes[N]['path']>]: string } & { [K in keyof QueryOf<N> as QueryOf<N>[K] extends 'required' ? K : never]: string } & {
    [K in keyof QueryOf<N> as QueryOf<N>[K] extends 'optional' ? K : never]?: string;
  }
>;

/** The page `N` with its params. */
export type RouteOf<N extends RouteName> = { name: N } & RouteParams<N>;
/** The pages of the dashboard, as the address bar names them; `notFound` for any other address. */
export type Route = { [N in RouteName]: Flat<RouteOf<N>> }[RouteName] | { name: 'notFound'; path: string };

/** Whether `route` is the page `name` (a route's params come with its name: the type of `Route` pairs them). */
export function isRoute<N extends RouteName>(route: { name: string }, name: N): route is RouteOf<N> {
  return route.name === name;
}

const ID = /^[A-Za-z0-9_-]{1,100}$/;
const NAMES = Object.keys(ROUTES) as RouteName[];
const segmentsOf = (path: string) => path.split('/').slice(1);
const isParam = (segment: string) => segment.startsWith(':');
/** The routes in the order an address is tried: fewer `:param` segments first, so `/backtests/new` is never read as an id. */
const BY_LITERALS = [...NAMES].sort((a, b) => segmentsOf(ROUTES[a].path).filter(isParam).length - segmentsOf(ROUTES[b].path).filter(isParam).length);
const queryOf = (name: RouteName): Record<string, QueryParam> => {
  const spec: RouteSpec = ROUTES[name];
  return spec.query ?? {};
};

/** The params of `name` read from the path's `segments`, or null when the path is not that route's. */
function matchPath(name: RouteName, segments: string[]): Record<string, string> | null {
  const pattern = segmentsOf(ROUTES[name].path);
  if (pattern.length !== segments.length) return null;
  const params: Record<string, string> = {};
  for (const [index, part] of pattern.entries()) {
    const segment = segments[index]!;
    if (isParam(part)) {
      if (!ID.test(segment)) return null;
      params[part.slice(1)] = segment;
    } else if (part !== segment) return null;
  }
  return params;
}

/** The route of an address (`pathname` and `search` of `location`); `notFound` for any other path. */
export function parseRoute(pathname: string, search = ''): Route {
  const path = pathname.length > 1 ? pathname.replace(/\/+$/, '') : pathname;
  const segments = path === '/' ? segmentsOf(ROUTES[HOME].path) : segmentsOf(path);
  const query = new URLSearchParams(search);
  for (const name of BY_LITERALS) {
    const params = matchPath(name, segments);
    if (!params) continue;
    for (const [key, kind] of Object.entries(queryOf(name))) {
      const value = query.get(key);
      if (kind === 'required') params[key] = value ?? '';
      else if (value) params[key] = value;
    }
    // the params are those RouteParams<name> declares, read above from the same table
    return { name, ...params } as Route;
  }
  return { name: 'notFound', path: pathname };
}

/** The address of a route: what links point at. */
export function routePath(route: Route): string {
  if (route.name === 'notFound') return route.path;
  const params: Record<string, string | undefined> = { ...route };
  const path = ROUTES[route.name].path.replace(/:(\w+)/g, (_match, param: string) => encodeURIComponent(params[param] ?? ''));
  const query = Object.entries(queryOf(route.name))
    .filter(([key, kind]) => kind === 'required' || params[key])
    .map(([key]) => `${key}=${encodeURIComponent(params[key] ?? '')}`);
  return query.length ? `${path}?${query.join('&')}` : path;
}

/** What a page is mounted anew for: the record it shows (its path's params and required query params), not its optional filters. */
export function routeKey(route: Route): string {
  if (route.name === 'notFound') return route.path;
  const params: Record<string, string | undefined> = { ...route };
  const { path } = ROUTES[route.name];
  const required = Object.entries(queryOf(route.name)).filter(([, kind]) => kind === 'required');
  return [
    route.name,
    ...segmentsOf(path)
      .filter(isParam)
      .map((part) => params[part.slice(1)]),
    ...required.map(([key]) => params[key]),
  ].join(':');
}

/** A page the top bar links to (its route has a `nav` label, and no param it cannot do without). */
type SectionName = { [N in RouteName]: Routes[N] extends { nav: string } ? N : never }[RouteName];
const isSection = (name: RouteName): name is SectionName => 'nav' in ROUTES[name];

/** The top bar's sections, in order: each section's route and label. */
export const NAV_SECTIONS: ReadonlyArray<{ name: SectionName; label: string }> = NAMES.filter(isSection).map((name) => ({ name, label: ROUTES[name].nav }));

/** The section a route belongs to: the one whose path its path starts with (`/backtests/compare` is under Backtests); null for `notFound`. */
export function sectionOf(route: Route): RouteName | null {
  if (route.name === 'notFound') return null;
  const first = segmentsOf(ROUTES[route.name].path)[0];
  return NAV_SECTIONS.find((section) => segmentsOf(ROUTES[section.name].path)[0] === first)?.name ?? null;
}

/** From a list, the page of one of its records (`/backtests` → `/backtests/:id`), if it has one. */
export function recordOf(name: RouteName): RouteName | undefined {
  const record = `${ROUTES[name].path}/:id`;
  return NAMES.find((other) => ROUTES[other].path === record);
}

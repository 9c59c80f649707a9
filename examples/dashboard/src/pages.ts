import { createElement, type ComponentType, type ReactElement } from 'react';
import { isRoute, NAV_SECTIONS, type Route, type RouteName, type RouteParams, recordOf, routeKey } from './routing/route.js';
import { createLazyPage } from './ui/lazy-page.js';

/** A route's page: its code loaded on demand, and rendered with the route's params as props. */
interface RoutePage<N extends RouteName> {
  name: N;
  preload(): Promise<void>;
  /** The page of `route` when it is this page's; mounted anew when the record it shows changes (`routeKey`). */
  render(route: Route): ReactElement | null;
}

function routePage<N extends RouteName>(name: N, load: () => Promise<ComponentType<RouteParams<N>>>): RoutePage<N> {
  const Page = createLazyPage(load);
  return {
    name,
    preload: Page.preload,
    render(route) {
      const key = routeKey(route);
      return isRoute(route, name) ? createElement(Page, { ...route, key }) : null;
    },
  };
}

/*
 * The page of each route, each loaded when first opened: the sign-in and list pages need neither
 * CodeMirror nor the charts, so the first load stays small. `preloadPage` loads the page of the
 * address before the first render, so the page shows without a loading step.
 */
const PAGES: { [N in RouteName]: RoutePage<N> } = {
  strategies: routePage('strategies', () => import('./strategies/strategy-list-page.js').then((m) => m.StrategyListPage)),
  newStrategy: routePage('newStrategy', () => import('./strategies/strategy-new-page.js').then((m) => m.StrategyNewPage)),
  strategy: routePage('strategy', () => import('./strategies/strategy-page.js').then((m) => m.StrategyPage)),
  backtests: routePage('backtests', () => import('./backtests/backtest-list-page.js').then((m) => m.BacktestListPage)),
  newBacktest: routePage('newBacktest', () => import('./backtests/backtest-new-page.js').then((m) => m.BacktestNewPage)),
  compareBacktests: routePage('compareBacktests', () => import('./compare/compare-page.js').then((m) => m.CompareBacktestsPage)),
  backtest: routePage('backtest', () => import('./backtests/backtest-page.js').then((m) => m.BacktestPage)),
  optimizations: routePage('optimizations', () => import('./optimizations/optimization-list-page.js').then((m) => m.OptimizationListPage)),
  newOptimization: routePage('newOptimization', () => import('./optimizations/optimization-new-page.js').then((m) => m.OptimizationNewPage)),
  optimization: routePage('optimization', () => import('./optimizations/optimization-page.js').then((m) => m.OptimizationPage)),
  deployments: routePage('deployments', () => import('./deployments/deployment-list-page.js').then((m) => m.DeploymentListPage)),
  newDeployment: routePage('newDeployment', () => import('./deployments/deployment-new-page.js').then((m) => m.DeploymentNewPage)),
  deployment: routePage('deployment', () => import('./deployments/deployment-page.js').then((m) => m.DeploymentPage)),
  marketplace: routePage('marketplace', () => import('./marketplace/marketplace-page.js').then((m) => m.MarketplacePage)),
  myListings: routePage('myListings', () => import('./marketplace/my-listings-page.js').then((m) => m.MyListingsPage)),
  purchases: routePage('purchases', () => import('./marketplace/purchases-page.js').then((m) => m.PurchasesPage)),
  listing: routePage('listing', () => import('./marketplace/listing-page.js').then((m) => m.ListingPage)),
  billing: routePage('billing', () => import('./billing/billing-page.js').then((m) => m.BillingPage)),
  notifications: routePage('notifications', () => import('./notifications/notifications-page.js').then((m) => m.NotificationsPage)),
};

/** The page of a route (its code loads when it first renders, unless preloaded); null for `notFound`. */
export function renderPage(route: Route): ReactElement | null {
  return route.name === 'notFound' ? null : PAGES[route.name].render(route);
}

/** Loads the code of a route's page; settles (never rejects) once it is loaded or failed to. */
export function preloadPage(route: Route): Promise<void> {
  return route.name === 'notFound' ? Promise.resolve() : PAGES[route.name].preload().catch(() => undefined);
}

/**
 * Loads the code of the pages a user likely opens next from `route` (the top bar's sections, and
 * from a list its records' page), one at a time, each when `idle` lets it. Failures are ignored
 * (the page loads again when opened).
 */
export async function preloadLikelyPages(route: Route, idle: () => Promise<void>): Promise<void> {
  const record = route.name === 'notFound' ? undefined : recordOf(route.name);
  const next = new Set<RouteName>([...NAV_SECTIONS.map((section) => section.name), ...(record ? [record] : [])]);
  if (route.name !== 'notFound') next.delete(route.name);
  for (const name of next) {
    await idle();
    await PAGES[name].preload().catch(() => undefined);
  }
}

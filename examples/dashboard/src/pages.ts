import type { Route } from './routing/route.js';
import { createLazyPage, type LazyPage } from './ui/lazy-page.js';

/*
 * The pages, each loaded when first opened: the sign-in and list pages need neither CodeMirror
 * nor the charts, so the first load stays small. `preloadPage` loads the page of the address
 * before the first render, so the page shows without a loading step.
 */
export const StrategyListPage = createLazyPage(() => import('./strategies/strategy-list-page.js').then((m) => m.StrategyListPage));
export const StrategyNewPage = createLazyPage(() => import('./strategies/strategy-new-page.js').then((m) => m.StrategyNewPage));
export const StrategyPage = createLazyPage(() => import('./strategies/strategy-page.js').then((m) => m.StrategyPage));
export const BacktestListPage = createLazyPage(() => import('./backtests/backtest-list-page.js').then((m) => m.BacktestListPage));
export const BacktestNewPage = createLazyPage(() => import('./backtests/backtest-new-page.js').then((m) => m.BacktestNewPage));
export const BacktestPage = createLazyPage(() => import('./backtests/backtest-page.js').then((m) => m.BacktestPage));
export const OptimizationListPage = createLazyPage(() => import('./optimizations/optimization-list-page.js').then((m) => m.OptimizationListPage));
export const OptimizationNewPage = createLazyPage(() => import('./optimizations/optimization-new-page.js').then((m) => m.OptimizationNewPage));
export const OptimizationPage = createLazyPage(() => import('./optimizations/optimization-page.js').then((m) => m.OptimizationPage));
export const DeploymentListPage = createLazyPage(() => import('./deployments/deployment-list-page.js').then((m) => m.DeploymentListPage));
export const DeploymentNewPage = createLazyPage(() => import('./deployments/deployment-new-page.js').then((m) => m.DeploymentNewPage));
export const DeploymentPage = createLazyPage(() => import('./deployments/deployment-page.js').then((m) => m.DeploymentPage));
export const MarketplacePage = createLazyPage(() => import('./marketplace/marketplace-page.js').then((m) => m.MarketplacePage));
export const ListingPage = createLazyPage(() => import('./marketplace/listing-page.js').then((m) => m.ListingPage));
export const MyListingsPage = createLazyPage(() => import('./marketplace/my-listings-page.js').then((m) => m.MyListingsPage));
export const PurchasesPage = createLazyPage(() => import('./marketplace/purchases-page.js').then((m) => m.PurchasesPage));
export const CompareBacktestsPage = createLazyPage(() => import('./compare/compare-page.js').then((m) => m.CompareBacktestsPage));
export const BillingPage = createLazyPage(() => import('./billing/billing-page.js').then((m) => m.BillingPage));
export const NotificationsPage = createLazyPage(() => import('./notifications/notifications-page.js').then((m) => m.NotificationsPage));

const PAGES: Record<Route['name'], Pick<LazyPage<object>, 'preload'> | null> = {
  strategies: StrategyListPage,
  newStrategy: StrategyNewPage,
  strategy: StrategyPage,
  backtests: BacktestListPage,
  newBacktest: BacktestNewPage,
  backtest: BacktestPage,
  optimizations: OptimizationListPage,
  newOptimization: OptimizationNewPage,
  optimization: OptimizationPage,
  deployments: DeploymentListPage,
  newDeployment: DeploymentNewPage,
  deployment: DeploymentPage,
  marketplace: MarketplacePage,
  myListings: MyListingsPage,
  purchases: PurchasesPage,
  listing: ListingPage,
  compareBacktests: CompareBacktestsPage,
  billing: BillingPage,
  notifications: NotificationsPage,
  notFound: null,
};

/** Loads the code of a route's page; settles (never rejects) once it is loaded or failed to. */
export function preloadPage(route: Route): Promise<void> {
  return PAGES[route.name]?.preload().catch(() => undefined) ?? Promise.resolve();
}

/** The pages the top bar links to from every page. */
const SECTIONS: Route['name'][] = ['strategies', 'backtests', 'optimizations', 'deployments', 'marketplace', 'billing', 'notifications'];
/** From a list, the page of one of its records. */
const RECORD_OF: Partial<Record<Route['name'], Route['name']>> = {
  strategies: 'strategy',
  backtests: 'backtest',
  optimizations: 'optimization',
  deployments: 'deployment',
  marketplace: 'listing',
};

/**
 * Loads the code of the pages a user likely opens next from `route` (the top bar's sections, and
 * from a list its records' page), one at a time, each when `idle` lets it. Failures are ignored
 * (the page loads again when opened).
 */
export async function preloadLikelyPages(route: Route, idle: () => Promise<void>): Promise<void> {
  const record = RECORD_OF[route.name];
  const next = new Set([...SECTIONS, ...(record ? [record] : [])]);
  next.delete(route.name);
  for (const name of next) {
    await idle();
    await PAGES[name]?.preload().catch(() => undefined);
  }
}

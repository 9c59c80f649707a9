import { lazy } from 'react';

/*
 * The pages, each loaded when first opened: the sign-in and list pages need neither CodeMirror
 * nor the charts, so the first load stays small.
 */
export const StrategyListPage = lazy(() => import('./strategies/strategy-list-page.js').then((m) => ({ default: m.StrategyListPage })));
export const StrategyNewPage = lazy(() => import('./strategies/strategy-new-page.js').then((m) => ({ default: m.StrategyNewPage })));
export const StrategyPage = lazy(() => import('./strategies/strategy-page.js').then((m) => ({ default: m.StrategyPage })));
export const BacktestListPage = lazy(() => import('./backtests/backtest-list-page.js').then((m) => ({ default: m.BacktestListPage })));
export const BacktestNewPage = lazy(() => import('./backtests/backtest-new-page.js').then((m) => ({ default: m.BacktestNewPage })));
export const BacktestPage = lazy(() => import('./backtests/backtest-page.js').then((m) => ({ default: m.BacktestPage })));
export const DeploymentListPage = lazy(() => import('./deployments/deployment-list-page.js').then((m) => ({ default: m.DeploymentListPage })));
export const DeploymentNewPage = lazy(() => import('./deployments/deployment-new-page.js').then((m) => ({ default: m.DeploymentNewPage })));
export const DeploymentPage = lazy(() => import('./deployments/deployment-page.js').then((m) => ({ default: m.DeploymentPage })));
export const MarketplacePage = lazy(() => import('./marketplace/marketplace-page.js').then((m) => ({ default: m.MarketplacePage })));
export const ListingPage = lazy(() => import('./marketplace/listing-page.js').then((m) => ({ default: m.ListingPage })));
export const MyListingsPage = lazy(() => import('./marketplace/my-listings-page.js').then((m) => ({ default: m.MyListingsPage })));
export const PurchasesPage = lazy(() => import('./marketplace/purchases-page.js').then((m) => ({ default: m.PurchasesPage })));
export const CompareBacktestsPage = lazy(() => import('./compare/compare-page.js').then((m) => ({ default: m.CompareBacktestsPage })));
export const BillingPage = lazy(() => import('./billing/billing-page.js').then((m) => ({ default: m.BillingPage })));

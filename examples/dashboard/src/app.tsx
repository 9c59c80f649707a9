import { Suspense } from 'react';
import { NavBar } from './nav-bar.js';
import {
  BacktestListPage,
  BacktestNewPage,
  BacktestPage,
  BillingPage,
  CompareBacktestsPage,
  DeploymentListPage,
  DeploymentNewPage,
  DeploymentPage,
  ListingPage,
  MarketplacePage,
  MyListingsPage,
  NotificationsPage,
  OptimizationListPage,
  OptimizationNewPage,
  OptimizationPage,
  PurchasesPage,
  StrategyListPage,
  StrategyNewPage,
  StrategyPage,
} from './pages.js';
import { Loading } from './ui/loading.js';
import { type Route, routePath } from './routing/route.js';
import { ErrorBoundary } from './ui/error-boundary.js';
import { useRoute } from './routing/use-route.js';
import { useSession } from './session/session-context.js';
import { SignInPage } from './sign-in/sign-in-page.js';
import { NotFoundPage } from './not-found-page.js';

function Page({ route }: { route: Route }) {
  switch (route.name) {
    case 'strategies':
      return <StrategyListPage />;
    case 'newStrategy':
      return <StrategyNewPage />;
    case 'strategy':
      return <StrategyPage key={route.id} id={route.id} />;
    case 'backtests':
      return <BacktestListPage strategyId={route.strategyId} />;
    case 'newBacktest':
      return <BacktestNewPage strategyId={route.strategyId} />;
    case 'backtest':
      return <BacktestPage key={route.id} id={route.id} />;
    case 'optimizations':
      return <OptimizationListPage />;
    case 'newOptimization':
      return <OptimizationNewPage strategyId={route.strategyId} />;
    case 'optimization':
      return <OptimizationPage key={route.id} id={route.id} />;
    case 'deployments':
      return <DeploymentListPage />;
    case 'newDeployment':
      return <DeploymentNewPage strategyId={route.strategyId} />;
    case 'deployment':
      return <DeploymentPage key={route.id} id={route.id} />;
    case 'marketplace':
      return <MarketplacePage />;
    case 'myListings':
      return <MyListingsPage />;
    case 'purchases':
      return <PurchasesPage />;
    case 'listing':
      return <ListingPage key={route.id} id={route.id} />;
    case 'compareBacktests':
      return <CompareBacktestsPage key={`${route.a}:${route.b}`} a={route.a} b={route.b} />;
    case 'billing':
      return <BillingPage />;
    case 'notifications':
      return <NotificationsPage />;
    case 'notFound':
      return <NotFoundPage path={route.path} />;
  }
}

/** The dashboard: sign-in first, then the page of the address. */
export function App() {
  const { session } = useSession();
  const route = useRoute();
  if (!session) return <SignInPage />;
  return (
    <>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <NavBar route={route} />
      <main id="main" tabIndex={-1}>
        <ErrorBoundary resetKey={routePath(route)}>
          <Suspense fallback={<Loading label="Loading the page…" />}>
            <Page route={route} />
          </Suspense>
        </ErrorBoundary>
      </main>
    </>
  );
}

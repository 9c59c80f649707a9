import { Suspense } from 'react';
import { NavBar } from './nav-bar.js';
import { NotFoundPage } from './not-found-page.js';
import { renderPage } from './pages.js';
import { routePath } from './routing/route.js';
import { useRoute } from './routing/use-route.js';
import { useSession } from './session/session-context.js';
import { SignInPage } from './sign-in/sign-in-page.js';
import { ErrorBoundary } from './ui/error-boundary.js';
import { Loading } from './ui/loading.js';

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
            {route.name === 'notFound' ? <NotFoundPage path={route.path} /> : renderPage(route)}
          </Suspense>
        </ErrorBoundary>
      </main>
    </>
  );
}

import { preloadPage } from './pages.js';
import { parseRoute } from './routing/route.js';
import { readSession } from './session/session-storage.js';

/**
 * The page of the address the dashboard opened at, and the load of its code, started as this
 * module is evaluated. main.tsx imports it first, so the page's chunk is on its way while the
 * rest of the bundle (React DOM, the client's contract) is evaluated. Signed out, the sign-in
 * page shows first: nothing is loaded.
 */
export const initialRoute = parseRoute(window.location.pathname, window.location.search);

/** Settles (never rejects) once the initial page's code is loaded or failed to. */
export const initialPageLoaded: Promise<void> = readSession() ? preloadPage(initialRoute) : Promise.resolve();

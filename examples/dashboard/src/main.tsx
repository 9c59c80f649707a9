// first: starts loading the page's code before the rest of the bundle is evaluated, then its first request
import { initialPageLoaded, initialRoute } from './initial-page.js';
import './initial-data.js';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app.js';
import { preloadLikelyPages } from './pages.js';
import { SessionProvider } from './session/session-context.js';
import './styles.css';

/** Settles once the browser is idle (Safari has no `requestIdleCallback`). */
const idle = () =>
  new Promise<void>((done) => (typeof window.requestIdleCallback === 'function' ? window.requestIdleCallback(() => done()) : setTimeout(done, 50)));
/** The longest the first render waits for the page's code: after that it shows "Loading the page…". */
const PRELOAD_WAIT_MS = 3000;

const render = () =>
  createRoot(document.getElementById('root')!).render(
    <StrictMode>
      <SessionProvider>
        <App />
      </SessionProvider>
    </StrictMode>,
  );

// the first render waits for the page's code, so the page shows without a loading step (a
// suspended first render waits for React's 300 ms reveal throttle); a failure or a slow network
// renders anyway, and the page loads (or fails) as it would have
void Promise.race([initialPageLoaded, new Promise((done) => setTimeout(done, PRELOAD_WAIT_MS))]).then(() => {
  render();
  void preloadLikelyPages(initialRoute, idle);
});

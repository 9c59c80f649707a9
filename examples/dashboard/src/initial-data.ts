import { backtestKey, loadBacktest } from './backtests/backtest-query.js';
import { primeResults } from './backtests/prime-results.js';
import { initialRoute } from './initial-page.js';
import { initialSession } from './session/session-context.js';
import { primeAsync } from './ui/use-async.js';

/**
 * The first requests of the address's page, sent as this module is evaluated (main.tsx imports
 * it right after initial-page.ts), beside the page's code rather than after it: the page's hooks
 * take the answers. So far the backtest page: its detail, and as soon as that is in, a completed
 * run's trades and first candles (primeResults), while the page's code still loads and renders.
 */
const { client } = initialSession();
if (client && initialRoute.name === 'backtest') {
  const detail = loadBacktest(client, initialRoute.id);
  primeAsync(backtestKey(initialRoute.id), detail);
  detail.then((backtest) => primeResults(client, backtest)).catch(() => undefined); // the page reports a failure
}

import { backtestKey, loadBacktest } from './backtests/backtest-query.js';
import { initialRoute } from './initial-page.js';
import { initialSession } from './session/session-context.js';
import { primeAsync } from './ui/use-async.js';

/**
 * The first request of the address's page, sent as this module is evaluated (main.tsx imports it
 * right after initial-page.ts), beside the page's code rather than after it: the page's
 * `useAsync` takes the answer. So far the backtest page, whose detail the results wait for.
 */
const { client } = initialSession();
if (client && initialRoute.name === 'backtest') primeAsync(backtestKey(initialRoute.id), loadBacktest(client, initialRoute.id));

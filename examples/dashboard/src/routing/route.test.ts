import { describe, expect, it } from 'vitest';
import { parseRoute, routePath, type Route } from './route.js';

describe('dashboard routes', () => {
  it('reads every page from its address and writes the same address back', () => {
    const routes: Route[] = [
      { name: 'strategies' },
      { name: 'newStrategy' },
      { name: 'strategy', id: 'str_abc123' },
      { name: 'backtests' },
      { name: 'backtests', strategyId: 'str_abc123' },
      { name: 'newBacktest', strategyId: 'str_abc123' },
      { name: 'backtest', id: 'bt_xyz' },
      { name: 'deployments' },
      { name: 'newDeployment' },
      { name: 'newDeployment', strategyId: 'lst_abc123' },
      { name: 'deployment', id: 'dep_abc123' },
      { name: 'marketplace' },
      { name: 'myListings' },
      { name: 'purchases' },
      { name: 'listing', id: 'lst_abc123' },
      { name: 'compareBacktests', a: 'bt_one', b: 'bt_two' },
      { name: 'optimizations' },
      { name: 'newOptimization' },
      { name: 'newOptimization', strategyId: 'str_abc123' },
      { name: 'optimization', id: 'opt_abc123' },
      { name: 'billing' },
      { name: 'notifications' },
    ];
    for (const route of routes) {
      const url = new URL(routePath(route), 'http://localhost');
      expect(parseRoute(url.pathname, url.search)).toEqual(route);
    }
  });

  it('opens the strategies at / and tolerates a trailing slash', () => {
    expect(parseRoute('/')).toEqual({ name: 'strategies' });
    expect(parseRoute('/backtests/')).toEqual({ name: 'backtests' });
  });

  it('answers notFound for other paths', () => {
    expect(parseRoute('/nope')).toEqual({ name: 'notFound', path: '/nope' });
    expect(parseRoute('/strategies/a/b')).toEqual({ name: 'notFound', path: '/strategies/a/b' });
  });
});

import { describe, expect, it } from 'vitest';
import { NAV_SECTIONS, parseRoute, recordOf, type Route, routeKey, routePath, sectionOf } from './route.js';

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

  it('reads a literal segment before an id: /backtests/new and /backtests/compare are no backtests', () => {
    expect(parseRoute('/backtests/new')).toEqual({ name: 'newBacktest' });
    expect(parseRoute('/backtests/compare', '?a=bt_1')).toEqual({ name: 'compareBacktests', a: 'bt_1', b: '' });
    expect(parseRoute('/marketplace/mine')).toEqual({ name: 'myListings' });
    expect(parseRoute('/strategies/a%20b')).toEqual({ name: 'notFound', path: '/strategies/a%20b' });
  });

  it('writes an optional query parameter only when set, a required one always', () => {
    expect(routePath({ name: 'backtests' })).toBe('/backtests');
    expect(routePath({ name: 'newBacktest', strategyId: 'lst_a b' })).toBe('/backtests/new?strategyId=lst_a%20b');
    expect(routePath({ name: 'compareBacktests', a: 'bt_1', b: '' })).toBe('/backtests/compare?a=bt_1&b=');
  });

  it('keys a page by the record it shows, not by its optional filters', () => {
    expect(routeKey({ name: 'backtests', strategyId: 'str_a' })).toBe(routeKey({ name: 'backtests' }));
    expect(routeKey({ name: 'strategy', id: 'str_a' })).not.toBe(routeKey({ name: 'strategy', id: 'str_b' }));
    expect(routeKey({ name: 'compareBacktests', a: 'bt_1', b: 'bt_2' })).not.toBe(routeKey({ name: 'compareBacktests', a: 'bt_1', b: 'bt_3' }));
  });

  it('puts each page under the top bar section of its path, and finds a list its record page', () => {
    expect(NAV_SECTIONS.map((section) => section.label)).toEqual([
      'Strategies',
      'Backtests',
      'Optimizations',
      'Deployments',
      'Marketplace',
      'Billing',
      'Notifications',
    ]);
    expect(sectionOf({ name: 'compareBacktests', a: 'bt_1', b: 'bt_2' })).toBe('backtests');
    expect(sectionOf({ name: 'purchases' })).toBe('marketplace');
    expect(sectionOf({ name: 'newStrategy' })).toBe('strategies');
    expect(sectionOf({ name: 'notFound', path: '/nope' })).toBeNull();
    expect(recordOf('marketplace')).toBe('listing');
    expect(recordOf('backtests')).toBe('backtest');
    expect(recordOf('billing')).toBeUndefined();
  });
});

import { routes, type RouteDef, type RouteKey } from '@stratbox/core/contract';

/**
 * The contract's routes, literal paths before parameterised ones, so that
 * `/api/marketplace/my-listings` is matched before `/api/marketplace/:id`.
 */
export function orderedRoutes(): Array<[RouteKey, RouteDef]> {
  const score = (path: string) => path.split('/').map((segment) => (segment.startsWith(':') ? '1' : '0')).join('');
  return (Object.entries(routes) as Array<[RouteKey, RouteDef]>).sort(([, a], [, b]) => score(a.path).localeCompare(score(b.path)));
}

import { routes, type RouteDef, type RouteKey } from '@stratbox/core/contract';

/**
 * The contract's routes, literal paths before parameterised ones, so that
 * `/api/marketplace/my-listings` is matched before `/api/marketplace/:id`.
 */
export function orderedRoutes(): Array<[RouteKey, RouteDef]> {
  const score = (path: string) =>
    path
      .split('/')
      .map((segment) => (segment.startsWith(':') ? '1' : '0'))
      .join('');
  return (Object.entries(routes) as Array<[RouteKey, RouteDef]>).sort(([, a], [, b]) => score(a.path).localeCompare(score(b.path)));
}

/** Each path the router answers, in the order of `orderedRoutes`, with its methods (and `/api/openapi.json` when served). */
export function contractPaths(withOpenApi: boolean): Array<{ path: string; methods: string[] }> {
  const byPath = new Map<string, string[]>();
  if (withOpenApi) byPath.set('/api/openapi.json', ['GET']);
  for (const [, route] of orderedRoutes()) byPath.set(route.path, [...(byPath.get(route.path) ?? []), route.method.toUpperCase()]);
  return [...byPath].map(([path, methods]) => ({ path, methods }));
}

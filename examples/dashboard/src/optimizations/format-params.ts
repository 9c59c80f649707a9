/** Parameters as `fast=10, slow=30`; with `only`, just those it names (the searched ones), in its order. */
export function formatParams(params: Record<string, string>, only?: Record<string, unknown>): string {
  const names = only ? Object.keys(only).filter((name) => name in params) : Object.keys(params);
  return names.map((name) => `${name}=${params[name]}`).join(', ') || 'the defaults';
}

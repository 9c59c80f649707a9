/**
 * Points a ccxt exchange's API at another origin: every `http(s)://host` URL of `urls.api`, nested
 * ones included, gets `base`'s origin, and every `ws(s)://host` stream URL gets `wsBase` (default:
 * `base` with a `ws:` scheme), paths kept. For local doubles of an exchange and for operators'
 * proxies (the example server's STRATBOX_EXCHANGE_URLS): the exchange then reaches nothing else,
 * its private order stream included.
 */
export function moveExchangeApi(exchange: { urls: Record<string, unknown> }, base: string, wsBase = base.replace(/^http/, 'ws')): void {
  const origin = base.replace(/\/+$/, '');
  const wsOrigin = wsBase.replace(/\/+$/, '');
  const move = (node: Record<string, unknown>) => {
    for (const [key, value] of Object.entries(node)) {
      if (typeof value === 'string') node[key] = value.replace(/^https?:\/\/[^/]+/, origin).replace(/^wss?:\/\/[^/]+/, wsOrigin);
      else if (value !== null && typeof value === 'object') move(value as Record<string, unknown>);
    }
  };
  const api = exchange.urls['api'];
  if (api !== null && typeof api === 'object') move(api as Record<string, unknown>);
}

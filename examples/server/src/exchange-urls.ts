import { createCcxtExchange } from '@stratbox/core';

/**
 * STRATBOX_EXCHANGE_URLS: JSON `{ "<ccxt exchange id>": "http://host:port" }` moving every API
 * base URL of that exchange to another host (a local exchange emulator, a recording proxy, a
 * test double). Never set it in production.
 */
export function readExchangeUrls(env: NodeJS.ProcessEnv = process.env): Record<string, string> | null {
  return env.STRATBOX_EXCHANGE_URLS ? (JSON.parse(env.STRATBOX_EXCHANGE_URLS) as Record<string, string>) : null;
}

/**
 * `createCcxtExchange(id, config)` with the exchange's API moved to the base URL STRATBOX_EXCHANGE_URLS
 * gives for it, if any; `onMoved` is told when it is.
 */
export async function createExchangeAt(
  urls: Record<string, string> | null,
  exchangeId: string,
  config: Record<string, unknown> = {},
  onMoved?: (base: string) => void,
): Promise<Awaited<ReturnType<typeof createCcxtExchange>>> {
  const exchange = await createCcxtExchange(exchangeId, config);
  const base = urls?.[exchangeId];
  if (base) {
    const api = exchange.urls['api'] as Record<string, string>;
    for (const [key, value] of Object.entries(api)) if (typeof value === 'string') api[key] = value.replace(/^https?:\/\/[^/]+/, base);
    onMoved?.(base);
  }
  return exchange;
}

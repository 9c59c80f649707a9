import { createCcxtExchange, moveExchangeApi } from '@stratbox/core';

/**
 * `createCcxtExchange(id, config)` with the exchange's API moved to the base URL STRATBOX_EXCHANGE_URLS
 * gives for it, if any (`urls`: the parsed variable, see env.ts; never set it in production);
 * `onMoved` is told when it is.
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
    moveExchangeApi(exchange, base);
    onMoved?.(base);
  }
  return exchange;
}

/**
 * Exchange gateways: ccxt (any exchange ccxt supports) and `paper` (simulated), the client
 * pool that shares one client per credential, and write-ahead order placement. Importing this
 * does not load ccxt: the pool loads it on first use.
 */
export { CCXT_EXCHANGE_IDS, PAPER_EXCHANGE_ID, isKnownExchange } from './ccxt-exchanges.js';
export { createCcxtGateway, type CcxtGatewayOptions } from './ccxt-gateway.js';
export type { CcxtExchange } from './ccxt-exchange.js';
export { moveExchangeApi } from './move-exchange-api.js';
export {
  createPaperGateway,
  type PaperGateway,
  type PaperGatewayOptions,
  type PaperPersistence,
  type PaperPriceSource,
  type PaperFundingSource,
  type PaperFundingEvent,
} from './paper-gateway.js';
export { createMarketDataFundingSource, type MarketDataFundingSourceOptions, type FundingRatesReader } from './paper-funding-source.js';
export { createStorePaperPersistence } from './paper-persistence.js';
export { createCandlePriceSource, type CandlePriceSourceOptions } from './candle-price-source.js';
export {
  createExchangeClientPool,
  type ExchangeClientPool,
  type ExchangeClientPoolOptions,
  type PoolCredential,
  type PoolMarketType,
} from './exchange-client-pool.js';
export { createOrderPlacement, type OrderPlacement, type PlaceOrderInput } from './order-placement.js';
export { newClientOrderId, CLIENT_ORDER_ID_PATTERN } from './client-order-id.js';
export { createRetryPolicy, createCooldown, type RetryOptions, type RetryPolicy, type Cooldown } from './retry-policy.js';
export { createMemoryExchangeBans } from './memory-exchange-bans.js';

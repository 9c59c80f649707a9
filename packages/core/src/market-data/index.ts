/**
 * Market data: where candles and funding rates come from (CSV imports, an exchange via ccxt, a
 * synthetic generator), the Store cache they are kept in, and `createMarketData`, which picks the
 * source.
 * Nothing here loads ccxt at import time; `createCcxtExchange` loads it when called.
 */
export { allocateSeries, sliceSeries, dayStartMs, dayOf } from './candle-series.js';
export { resolveCandleRange, daysBetween, isTimeframe, DEFAULT_MAX_CANDLES, type CandleRange } from './candle-range.js';
export { packCandleChunk, unpackCandleChunk, unpackCandleChunkInto, CANDLE_BYTES } from './chunk-codec.js';
export {
  createStoreCandleCache,
  createCachedCandleSource,
  type StoreCandleCache,
  type CachedCandles,
  type CandleWriteOptions,
} from './cached-market-data.js';
export { createSyntheticMarketData, generateSyntheticSeries, symbolSeed, type SyntheticMarketDataOptions } from './synthetic-market-data.js';
export { createCcxtMarketData, createCcxtExchange, type CcxtMarketDataOptions } from './ccxt-market-data.js';
export { downloadCandles, type DownloadCandlesOptions, type DownloadCandlesResult, type DownloadProgress } from './candle-download.js';
export { importCandlesCsv, parseCsvTime, type ImportCandlesCsvOptions, type ImportCandlesCsvResult } from './csv-import.js';
export {
  createMarketData,
  defaultCandleSources,
  defaultFundingSources,
  createDownloadedCandleSource,
  type MarketDataOptions,
  type CandleProvider,
  type FundingAnswerer,
} from './composite-market-data.js';
export {
  createStoreFundingCache,
  createCachedFundingSource,
  createDownloadedFundingSource,
  type StoreFundingCache,
  type CachedFunding,
  type FundingWriteOptions,
  type FundingProvider,
} from './cached-funding.js';
export { generateSyntheticFunding, SYNTHETIC_FUNDING_INTERVAL_MS, SYNTHETIC_FUNDING_BOUND } from './synthetic-funding.js';
export { resolveFundingRange, DEFAULT_MAX_FUNDING_DAYS, type FundingRange } from './funding-range.js';
export { packFundingChunk, unpackFundingChunkInto } from './funding-codec.js';
export { importFundingCsv, type ImportFundingCsvOptions, type ImportFundingCsvResult } from './funding-csv-import.js';

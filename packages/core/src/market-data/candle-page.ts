import { StratboxError } from '../errors/stratbox-error.js';
import type { CandleRequest, MarketData } from '../ports/market-data.js';

const DEFAULT_PAGE = 1000;

/**
 * One page of `GET /api/market-data/candles`: the very series a backtest over the same range
 * gets, from `offset` (carried in the opaque cursor) on.
 */
export async function candlePage(marketData: MarketData, request: CandleRequest, query: { limit?: number | undefined; cursor?: string | undefined }) {
  const offset = query.cursor === undefined ? 0 : decodeOffset(query.cursor);
  const limit = query.limit ?? DEFAULT_PAGE;
  const { source, series } = await marketData.getCandles(request);
  const end = Math.min(series.length, offset + limit);
  const candles = [];
  for (let i = offset; i < end; i++) {
    candles.push({
      time: new Date(series.time[i]!).toISOString(),
      open: series.open[i]!,
      high: series.high[i]!,
      low: series.low[i]!,
      close: series.close[i]!,
      volume: series.volume[i]!,
    });
  }
  return { candles, source, nextCursor: end < series.length ? Buffer.from(`o:${end}`).toString('base64url') : null };
}

function decodeOffset(cursor: string): number {
  const match = /^o:(\d{1,9})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!match) throw new StratboxError('VALIDATION_FAILED', 'Invalid cursor', [{ path: 'query.cursor', message: 'Not a cursor this API issued' }]);
  return Number(match[1]);
}

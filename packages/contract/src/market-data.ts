import { z } from 'zod';
import { DateOnly, MarketSymbol, NextCursor, Timeframe, queryInteger } from './common.js';

export const Candle = z.object({
  time: z.iso.datetime({ precision: 3 }),
  open: z.number(),
  high: z.number(),
  low: z.number(),
  close: z.number(),
  volume: z.number(),
});

export const CandlesQuery = z
  .strictObject({
    symbol: MarketSymbol,
    timeframe: Timeframe,
    startDate: DateOnly,
    endDate: DateOnly,
    limit: queryInteger().min(1).max(5000).optional().meta({ description: 'Candles per page (default 1000)' }),
    cursor: z.string().min(1).max(512).optional(),
  })
  .refine((q) => q.startDate <= q.endDate, { message: 'startDate must not be after endDate', path: ['endDate'] });

export const CandleList = z.object({ candles: z.array(Candle), source: z.string(), nextCursor: NextCursor });

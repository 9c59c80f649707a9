import { z } from 'zod';
import { ERROR_CODES } from './error-codes.js';

/** ISO 8601 UTC timestamp with milliseconds, e.g. `2026-01-02T03:04:05.000Z`. */
export const Timestamp = z.iso.datetime({ precision: 3 }).meta({ example: '2026-01-02T03:04:05.000Z' });

/** A calendar date `YYYY-MM-DD` that exists. */
export const DateOnly = z.iso.date().meta({ example: '2026-01-31' });

/** Market types a strategy, backtest or deployment targets. `LINEAR` is a USDT-margined perpetual swap. */
export const MarketType = z.enum(['LINEAR', 'SPOT']);

/** A ccxt unified symbol, e.g. `BTC/USDT` (spot) or `BTC/USDT:USDT` (linear perpetual). */
export const MarketSymbol = z
  .string()
  .regex(/^[A-Z0-9]{1,20}\/[A-Z0-9]{1,20}(:[A-Z0-9]{1,20})?$/, { message: 'Expected a ccxt unified symbol such as BTC/USDT:USDT' })
  .meta({ example: 'BTC/USDT:USDT' });

/** Candle timeframes. */
export const Timeframe = z.enum(['1m', '5m', '15m', '30m', '1h', '4h', '1d']);

/** Strategy parameters as given by clients: every value is a string (docs/spec.md). */
export const ParamMap = z
  .record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/, { message: 'Parameter names are identifiers' }), z.string().max(1000))
  .refine((m) => Object.keys(m).length <= 100, { message: 'At most 100 parameters' });

/**
 * An integer query parameter. Callers give a number (the client writes it as its decimal
 * string, as every query value travels); the server coerces the string back. Its input type is
 * `number`, so `limit: 'ten'` does not compile in a client call.
 */
export const queryInteger = () => z.coerce.number<number>().int();

/** Query parameters shared by every list endpoint: newest first, `limit` 1..200 (default 50). */
export const PageQuery = {
  limit: queryInteger().min(1).max(200).optional().meta({ description: 'Page size, 1 to 200 (default 50)' }),
  cursor: z.string().min(1).max(512).optional().meta({ description: 'The `nextCursor` of the previous page' }),
};

/** Every list response carries the cursor of the next page, or null on the last page. */
export const NextCursor = z.string().nullable();

export const ErrorCodeSchema = z.enum(ERROR_CODES);

/** The one error body every failing request answers with. */
export const ErrorBody = z.object({
  error: z.object({
    code: ErrorCodeSchema,
    message: z.string(),
    details: z.unknown().optional(),
  }),
});
export type ErrorBody = z.infer<typeof ErrorBody>;

/** Path params for routes addressing one record by `:id`. */
export function idParams<T extends z.ZodType>(id: T) {
  return z.strictObject({ id });
}

/** Usage-style counter `{ used, limit }`. */
export const Counter = z.object({ used: z.number().int(), limit: z.number().int() });

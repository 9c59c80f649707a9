import type { CandleChunkRecord, CandleRepository } from '@stratbox/core';
import type { QueryContext } from './query-context.js';

/**
 * Rows per insert statement: 6 parameters each, far below SQLite's and PostgreSQL's limits, and
 * at most ~4.4 MB of candle data per statement at a day of 1-minute candles (69 KB).
 */
const BATCH_ROWS = 64;

/** The bytes of `data` as a Buffer over the same memory (no copy), which both drivers bind as a BLOB / bytea. */
const asBuffer = (data: Uint8Array) => Buffer.from(data.buffer, data.byteOffset, data.byteLength);

/**
 * The bytes read back, as a Uint8Array (the drivers give a Buffer). Copied only if it does not
 * start on an 8-byte boundary of its buffer, so that callers can view it as a Float64Array.
 */
const aligned = (data: Uint8Array) => (data.byteOffset % 8 === 0 ? data : new Uint8Array(data));

const chunkKey = (c: CandleChunkRecord) => JSON.stringify([c.source, c.symbol, c.timeframe, c.day]);

/** Candles packed by day, keyed by (source, symbol, timeframe, day). */
export function createCandleRepository({ db }: QueryContext): CandleRepository {
  /** The chunks of one (source, symbol, timeframe) whose day is within [fromDay, toDay]. */
  const chunksWithin = (source: string, symbol: string, timeframe: string, fromDay: string, toDay: string) =>
    db
      .selectFrom('candle_chunks')
      .where('source', '=', source)
      .where('symbol', '=', symbol)
      .where('timeframe', '=', timeframe)
      .where('day', '>=', fromDay)
      .where('day', '<=', toDay);

  return {
    async putChunks(chunks) {
      // The last chunk of a key wins (PostgreSQL refuses to upsert one row twice in a statement).
      const unique = [...new Map(chunks.map((c) => [chunkKey(c), c])).values()];
      if (unique.length === 0) return;
      const rows = unique.map((c) => ({
        source: c.source,
        symbol: c.symbol,
        timeframe: c.timeframe,
        day: c.day,
        count: c.count,
        data: asBuffer(c.data),
      }));
      const batches: (typeof rows)[] = [];
      for (let i = 0; i < rows.length; i += BATCH_ROWS) batches.push(rows.slice(i, i + BATCH_ROWS));

      const run = async (trx: typeof db) => {
        for (const batch of batches) {
          await trx
            .insertInto('candle_chunks')
            .values(batch)
            .onConflict((oc) =>
              oc.columns(['source', 'symbol', 'timeframe', 'day']).doUpdateSet((eb) => ({
                count: eb.ref('excluded.count'),
                data: eb.ref('excluded.data'),
              })),
            )
            .execute();
        }
      };
      // Several batches commit together: in the caller's transaction if there is one, else in one of their own.
      if (batches.length === 1 || db.isTransaction) await run(db);
      else await db.transaction().execute(run);
    },

    async getChunks(source, symbol, timeframe, fromDay, toDay) {
      const rows = await chunksWithin(source, symbol, timeframe, fromDay, toDay).selectAll().orderBy('day', 'asc').execute();
      return rows.map((r) => ({
        source: r.source,
        symbol: r.symbol,
        timeframe: r.timeframe,
        day: r.day,
        count: r.count,
        data: aligned(r.data),
      }));
    },

    async countChunks(source, symbol, timeframe, fromDay, toDay) {
      const row = await chunksWithin(source, symbol, timeframe, fromDay, toDay)
        .select((eb) => [eb.fn.countAll().as('days'), eb.fn.sum('count').as('candles')])
        .executeTakeFirstOrThrow();
      // PostgreSQL answers bigint aggregates as strings, and SUM over no row as null.
      return { days: Number(row.days), candles: Number(row.candles ?? 0) };
    },

    async listSources(symbol, timeframe) {
      const rows = await db
        .selectFrom('candle_chunks')
        .select('source')
        .distinct()
        .where('symbol', '=', symbol)
        .where('timeframe', '=', timeframe)
        .orderBy('source', 'asc')
        .execute();
      return rows.map((r) => r.source);
    },
  };
}

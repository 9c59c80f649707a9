import type { FundingChunkRecord, FundingRateRepository } from '@stratbox/core';
import type { QueryContext } from './query-context.js';

/** Rows per insert statement: 5 parameters each, far below SQLite's and PostgreSQL's limits. */
const BATCH_ROWS = 200;

/** The bytes of `data` as a Buffer over the same memory (no copy), which both drivers bind as a BLOB / bytea. */
const asBuffer = (data: Uint8Array) => Buffer.from(data.buffer, data.byteOffset, data.byteLength);

/** The bytes read back as a Uint8Array, copied only if not 8-byte aligned (so callers may view them as a Float64Array). */
const aligned = (data: Uint8Array) => (data.byteOffset % 8 === 0 ? data : new Uint8Array(data));

const chunkKey = (c: FundingChunkRecord) => JSON.stringify([c.source, c.symbol, c.day]);

/** Funding rates packed by day, keyed by (source, symbol, day): `candles.ts` without a timeframe. */
export function createFundingRateRepository({ db }: QueryContext): FundingRateRepository {
  const chunksWithin = (source: string, symbol: string, fromDay: string, toDay: string) =>
    db.selectFrom('funding_chunks').where('source', '=', source).where('symbol', '=', symbol).where('day', '>=', fromDay).where('day', '<=', toDay);

  return {
    async putChunks(chunks) {
      // The last chunk of a key wins (PostgreSQL refuses to upsert one row twice in a statement).
      const rows = [...new Map(chunks.map((c) => [chunkKey(c), c])).values()].map((c) => ({
        source: c.source,
        symbol: c.symbol,
        day: c.day,
        count: c.count,
        data: asBuffer(c.data),
      }));
      if (rows.length === 0) return;
      const batches: (typeof rows)[] = [];
      for (let i = 0; i < rows.length; i += BATCH_ROWS) batches.push(rows.slice(i, i + BATCH_ROWS));
      const run = async (trx: typeof db) => {
        for (const batch of batches) {
          await trx
            .insertInto('funding_chunks')
            .values(batch)
            .onConflict((oc) =>
              oc.columns(['source', 'symbol', 'day']).doUpdateSet((eb) => ({
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

    async getChunks(source, symbol, fromDay, toDay) {
      const rows = await chunksWithin(source, symbol, fromDay, toDay).selectAll().orderBy('day', 'asc').execute();
      return rows.map((r) => ({ source: r.source, symbol: r.symbol, day: r.day, count: r.count, data: aligned(r.data) }));
    },

    async countChunks(source, symbol, fromDay, toDay) {
      const row = await chunksWithin(source, symbol, fromDay, toDay)
        .select((eb) => [eb.fn.countAll().as('days'), eb.fn.sum('count').as('rates')])
        .executeTakeFirstOrThrow();
      // PostgreSQL answers bigint aggregates as strings, and SUM over no row as null.
      return { days: Number(row.days), rates: Number(row.rates ?? 0) };
    },

    async listSources(symbol) {
      const rows = await db.selectFrom('funding_chunks').select('source').distinct().where('symbol', '=', symbol).orderBy('source', 'asc').execute();
      return rows.map((r) => r.source);
    },
  };
}

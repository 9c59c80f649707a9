import type { Insertable, Selectable, Updateable } from 'kysely';
import type { VerificationRecordPatch, VerificationRecordRepository, VerificationRecordRow } from '@stratbox/core';
import type { VerificationRecordsTable } from '../schema.js';
import type { QueryContext } from './query-context.js';

/** The bytes of `data` as a Buffer over the same memory (no copy), which both drivers bind as a BLOB / bytea. */
const asBuffer = (data: Uint8Array) => Buffer.from(data.buffer, data.byteOffset, data.byteLength);

type Forward = VerificationRecordRow['forward'];

/** The forward record's columns: its JSON without the points, and the points' bytes (null without). */
function forwardColumns({ points, ...forward }: Forward): Pick<Insertable<VerificationRecordsTable>, 'forward' | 'forward_points'> {
  return { forward: JSON.stringify(forward), forward_points: points === undefined ? null : asBuffer(points) };
}

function toRow(r: VerificationRecordRow): Insertable<VerificationRecordsTable> {
  return {
    id: r.id,
    listing_id: r.listingId,
    seller_id: r.sellerId,
    strategy_id: r.strategyId,
    status: r.status,
    error: r.error === null ? null : JSON.stringify(r.error),
    identity: JSON.stringify(r.identity),
    backtest: r.backtest === null ? null : JSON.stringify(r.backtest),
    ...forwardColumns(r.forward),
    search_effort: JSON.stringify(r.searchEffort),
    badge: r.badge,
    created_at: r.createdAt,
    superseded_at: r.supersededAt,
    updated_at: r.updatedAt,
  };
}

function toRecord(row: Selectable<VerificationRecordsTable>): VerificationRecordRow {
  const forward = JSON.parse(row.forward) as Omit<Forward, 'points'>;
  return {
    id: row.id,
    listingId: row.listing_id,
    sellerId: row.seller_id,
    strategyId: row.strategy_id,
    status: row.status as VerificationRecordRow['status'],
    error: row.error === null ? null : (JSON.parse(row.error) as VerificationRecordRow['error']),
    identity: JSON.parse(row.identity) as VerificationRecordRow['identity'],
    backtest: row.backtest === null ? null : (JSON.parse(row.backtest) as VerificationRecordRow['backtest']),
    // The points as a plain Uint8Array of exactly the stored bytes (the drivers give a Buffer, maybe pooled).
    forward: row.forward_points === null ? forward : { ...forward, points: new Uint8Array(row.forward_points) },
    searchEffort: JSON.parse(row.search_effort) as VerificationRecordRow['searchEffort'],
    badge: row.badge as VerificationRecordRow['badge'],
    createdAt: row.created_at,
    supersededAt: row.superseded_at,
    updatedAt: row.updated_at,
  };
}

/** The columns a patch sets; undefined fields are not given. */
function toUpdate(patch: VerificationRecordPatch): Updateable<VerificationRecordsTable> {
  const set: Updateable<VerificationRecordsTable> = {};
  if (patch.status !== undefined) set.status = patch.status;
  if (patch.error !== undefined) set.error = patch.error === null ? null : JSON.stringify(patch.error);
  if (patch.backtest !== undefined) set.backtest = patch.backtest === null ? null : JSON.stringify(patch.backtest);
  if (patch.forward !== undefined) Object.assign(set, forwardColumns(patch.forward));
  if (patch.badge !== undefined) set.badge = patch.badge;
  if (patch.supersededAt !== undefined) set.superseded_at = patch.supersededAt;
  if (patch.updatedAt !== undefined) set.updated_at = patch.updatedAt;
  return set;
}

/**
 * Verified listings' records. JSON text for the structured fields, the forward points as a BLOB /
 * bytea returned byte for byte; `update` is one conditional UPDATE on (id, updated_at), so of two
 * writers from the same `updatedAt` exactly one changes the row.
 */
export function createVerificationRecordRepository({ db }: QueryContext): VerificationRecordRepository {
  const findById = async (id: string) => {
    const row = await db.selectFrom('verification_records').selectAll().where('id', '=', id).executeTakeFirst();
    return row ? toRecord(row) : null;
  };

  return {
    async insert(record) {
      await db.insertInto('verification_records').values(toRow(record)).execute();
    },

    findById,

    async listByListing(listingId) {
      const rows = await db
        .selectFrom('verification_records')
        .selectAll()
        .where('listing_id', '=', listingId)
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .execute();
      return rows.map(toRecord);
    },

    async update(id, expectedUpdatedAt, patch) {
      const set = toUpdate(patch);
      if (Object.keys(set).length === 0) {
        // Nothing to change: the record as it is, if it still has the expected updatedAt.
        const row = await db.selectFrom('verification_records').selectAll().where('id', '=', id).where('updated_at', '=', expectedUpdatedAt).executeTakeFirst();
        return row ? toRecord(row) : null;
      }
      const row = await db
        .updateTable('verification_records')
        .set(set)
        .where('id', '=', id)
        .where('updated_at', '=', expectedUpdatedAt)
        .returningAll()
        .executeTakeFirst();
      return row ? toRecord(row) : null;
    },

    async listCurrent(statuses, limit, after) {
      if (statuses.length === 0 || limit <= 0) return [];
      let query = db
        .selectFrom('verification_records')
        .selectAll()
        .where('superseded_at', 'is', null)
        .where('status', 'in', [...statuses]);
      if (after) query = query.where((eb) => eb(eb.refTuple('created_at', 'id'), '>', eb.tuple(after.createdAt, after.id)));
      const rows = await query.orderBy('created_at').orderBy('id').limit(limit).execute();
      return rows.map(toRecord);
    },
  };
}

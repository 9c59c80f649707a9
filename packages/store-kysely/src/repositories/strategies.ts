import type { Selectable, Updateable } from 'kysely';
import type { StrategyRecord, StrategyRepository, StrategyVersionInfo, StrategyVersionRecord } from '@stratbox/core';
import type { StrategiesTable, StrategyVersionsTable } from '../schema.js';
import type { QueryContext } from './query-context.js';

function toStrategy(row: Selectable<StrategiesTable>): StrategyRecord {
  return {
    id: row.id,
    userId: row.user_id,
    name: row.name,
    description: row.description,
    marketType: row.market_type,
    version: row.version,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function toVersionInfo(row: Omit<Selectable<StrategyVersionsTable>, 'source'>): StrategyVersionInfo {
  return {
    strategyId: row.strategy_id,
    userId: row.user_id,
    version: row.version,
    sourceSha256: row.source_sha256,
    sizeBytes: row.size_bytes,
    createdAt: row.created_at,
  };
}

const VERSION_INFO_COLUMNS = ['strategy_id', 'user_id', 'version', 'source_sha256', 'size_bytes', 'created_at'] as const;

/**
 * Strategies and their versions. Deleting a strategy deletes its versions through the foreign
 * key's `on delete cascade`, in the same statement.
 */
export function createStrategyRepository({ db, dialect }: QueryContext): StrategyRepository {
  return {
    async insert(s) {
      await db
        .insertInto('strategies')
        .values({
          id: s.id,
          user_id: s.userId,
          name: s.name,
          description: s.description,
          market_type: s.marketType,
          version: s.version,
          created_at: s.createdAt,
          updated_at: s.updatedAt,
        })
        .execute();
    },

    async findById(userId, id, options) {
      let query = db.selectFrom('strategies').selectAll().where('id', '=', id).where('user_id', '=', userId);
      // SQLite has no row locks; its transactions are serialized whole (see the SQLite dialect).
      if (options?.forUpdate && dialect === 'postgres') query = query.forUpdate();
      const row = await query.executeTakeFirst();
      return row ? toStrategy(row) : null;
    },

    async list(userId, { limit, after }) {
      let query = db.selectFrom('strategies').selectAll().where('user_id', '=', userId);
      if (after) query = query.where((eb) => eb(eb.refTuple('created_at', 'id'), '<', eb.tuple(after.createdAt, after.id)));
      const rows = await query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
      return rows.map(toStrategy);
    },

    async update(userId, id, patch) {
      const set: Updateable<StrategiesTable> = {};
      if (patch.name !== undefined) set.name = patch.name;
      if (patch.description !== undefined) set.description = patch.description;
      if (patch.version !== undefined) set.version = patch.version;
      if (patch.updatedAt !== undefined) set.updated_at = patch.updatedAt;
      if (Object.keys(set).length === 0) {
        const row = await db.selectFrom('strategies').select('id').where('id', '=', id).where('user_id', '=', userId).executeTakeFirst();
        return row !== undefined;
      }
      const result = await db.updateTable('strategies').set(set).where('id', '=', id).where('user_id', '=', userId).executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },

    async delete(userId, id) {
      const result = await db.deleteFrom('strategies').where('id', '=', id).where('user_id', '=', userId).executeTakeFirst();
      return result.numDeletedRows > 0n;
    },

    async insertVersion(v: StrategyVersionRecord) {
      await db
        .insertInto('strategy_versions')
        .values({
          strategy_id: v.strategyId,
          user_id: v.userId,
          version: v.version,
          source: v.source,
          source_sha256: v.sourceSha256,
          size_bytes: v.sizeBytes,
          created_at: v.createdAt,
        })
        .execute();
    },

    async listVersions(userId, strategyId) {
      const rows = await db
        .selectFrom('strategy_versions')
        .select(VERSION_INFO_COLUMNS)
        .where('strategy_id', '=', strategyId)
        .where('user_id', '=', userId)
        .orderBy('version', 'desc')
        .execute();
      return rows.map(toVersionInfo);
    },

    async getVersion(userId, strategyId, version) {
      const row = await db
        .selectFrom('strategy_versions')
        .selectAll()
        .where('strategy_id', '=', strategyId)
        .where('version', '=', version)
        .where('user_id', '=', userId)
        .executeTakeFirst();
      return row ? { ...toVersionInfo(row), source: row.source } : null;
    },
  };
}

import type { Insertable, Selectable } from 'kysely';
import { ACTIVE_DEPLOYMENT_STATUSES, type DeploymentRecord, type DeploymentRepository, type DeploymentStatus } from '@stratbox/core';
import type { DeploymentsTable } from '../schema.js';
import type { QueryContext } from './query-context.js';

function toRow(d: DeploymentRecord): Insertable<DeploymentsTable> {
  return {
    id: d.id,
    user_id: d.userId,
    strategy_id: d.strategyId,
    strategy_version: d.strategyVersion,
    credential_id: d.credentialId,
    symbols: JSON.stringify(d.symbols),
    params: JSON.stringify(d.params),
    status: d.status,
    error: d.error === null ? null : JSON.stringify({ code: d.error.code, message: d.error.message }),
    created_at: d.createdAt,
    updated_at: d.updatedAt,
    started_at: d.startedAt,
    stopped_at: d.stoppedAt,
  };
}

function toDeployment(row: Selectable<DeploymentsTable>): DeploymentRecord {
  return {
    id: row.id,
    userId: row.user_id,
    strategyId: row.strategy_id,
    strategyVersion: row.strategy_version,
    credentialId: row.credential_id,
    symbols: JSON.parse(row.symbols) as string[],
    params: JSON.parse(row.params) as Record<string, string>,
    status: row.status as DeploymentStatus,
    error: row.error === null ? null : (JSON.parse(row.error) as { code: string; message: string }),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    startedAt: row.started_at,
    stoppedAt: row.stopped_at,
  };
}

/** Deployments of strategies to exchanges; symbols, params and error are stored as JSON text. */
export function createDeploymentRepository({ db }: QueryContext): DeploymentRepository {
  return {
    async insert(deployment) {
      await db.insertInto('deployments').values(toRow(deployment)).execute();
    },

    async findById(userId, id) {
      const row = await db.selectFrom('deployments').selectAll().where('id', '=', id).where('user_id', '=', userId).executeTakeFirst();
      return row ? toDeployment(row) : null;
    },

    async list(userId, { limit, after }) {
      let query = db.selectFrom('deployments').selectAll().where('user_id', '=', userId);
      if (after) query = query.where((eb) => eb(eb.refTuple('created_at', 'id'), '<', eb.tuple(after.createdAt, after.id)));
      const rows = await query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
      return rows.map(toDeployment);
    },

    async countActive(userId, filter = {}) {
      let query = db
        .selectFrom('deployments')
        .select((eb) => eb.fn.countAll<number | string | bigint>().as('count'))
        .where('user_id', '=', userId)
        .where('status', 'in', ACTIVE_DEPLOYMENT_STATUSES);
      if (filter.strategyId !== undefined) query = query.where('strategy_id', '=', filter.strategyId);
      if (filter.credentialId !== undefined) query = query.where('credential_id', '=', filter.credentialId);
      const row = await query.executeTakeFirstOrThrow();
      return Number(row.count);
    },
  };
}

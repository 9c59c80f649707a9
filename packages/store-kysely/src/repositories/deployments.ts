import type { Insertable, Selectable } from 'kysely';
import {
  ACTIVE_DEPLOYMENT_STATUSES,
  type ActiveDeploymentFilter,
  type DeploymentLogRecord,
  type DeploymentLogRepository,
  type DeploymentPatch,
  type DeploymentRecord,
  type DeploymentRepository,
  type DeploymentStatus,
  type StoredDeploymentLogRecord,
} from '@stratbox/core';
import type { Updateable } from 'kysely';
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
    risk: json(d.risk),
    halt: json(d.halt),
    preflight: json(d.preflight),
    reconciliation: json(d.reconciliation),
    risk_state: json(d.riskState),
    accepted_positions: json(d.acceptedPositions),
    leverage: d.leverage ?? null,
    margin_mode: d.marginMode ?? null,
  };
}

/** A JSON column's text: null (or absent) stays null. */
const json = (value: object | null | undefined): string | null => (value === null || value === undefined ? null : JSON.stringify(value));
const parsed = <T>(text: string | null): T | null => (text === null ? null : (JSON.parse(text) as T));

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
    risk: parsed<NonNullable<DeploymentRecord['risk']>>(row.risk),
    halt: parsed<NonNullable<DeploymentRecord['halt']>>(row.halt),
    preflight: parsed<NonNullable<DeploymentRecord['preflight']>>(row.preflight),
    reconciliation: parsed<NonNullable<DeploymentRecord['reconciliation']>>(row.reconciliation),
    riskState: parsed<NonNullable<DeploymentRecord['riskState']>>(row.risk_state),
    acceptedPositions: parsed<NonNullable<DeploymentRecord['acceptedPositions']>>(row.accepted_positions),
    leverage: row.leverage === null ? null : Number(row.leverage),
    marginMode: row.margin_mode as DeploymentRecord['marginMode'],
  };
}

function toUpdate(patch: DeploymentPatch): Updateable<DeploymentsTable> {
  const set: Updateable<DeploymentsTable> = {};
  if (patch.status !== undefined) set.status = patch.status;
  if (patch.error !== undefined) set.error = patch.error === null ? null : JSON.stringify({ code: patch.error.code, message: patch.error.message });
  if (patch.updatedAt !== undefined) set.updated_at = patch.updatedAt;
  if (patch.startedAt !== undefined) set.started_at = patch.startedAt;
  if (patch.stoppedAt !== undefined) set.stopped_at = patch.stoppedAt;
  if (patch.risk !== undefined) set.risk = json(patch.risk);
  if (patch.halt !== undefined) set.halt = json(patch.halt);
  if (patch.preflight !== undefined) set.preflight = json(patch.preflight);
  if (patch.reconciliation !== undefined) set.reconciliation = json(patch.reconciliation);
  if (patch.riskState !== undefined) set.risk_state = json(patch.riskState);
  if (patch.acceptedPositions !== undefined) set.accepted_positions = json(patch.acceptedPositions);
  return set;
}

/**
 * Deployments of strategies to exchanges; symbols, params, error, risk, halt, preflight, reconciliation, the risk guard's
 * state and the accepted positions are stored as JSON text; leverage is an integer and margin mode text.
 */
export function createDeploymentRepository({ db }: QueryContext): DeploymentRepository {
  /** The user's deployments in an active status, narrowed by `filter`. */
  const active = (userId: string, filter: ActiveDeploymentFilter) => {
    let query = db.selectFrom('deployments').where('user_id', '=', userId).where('status', 'in', ACTIVE_DEPLOYMENT_STATUSES);
    if (filter.strategyId !== undefined) query = query.where('strategy_id', '=', filter.strategyId);
    if (filter.credentialId !== undefined) query = query.where('credential_id', '=', filter.credentialId);
    return query;
  };

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
      const row = await active(userId, filter)
        .select((eb) => eb.fn.countAll<number | string | bigint>().as('count'))
        .executeTakeFirstOrThrow();
      return Number(row.count);
    },

    async listActive(userId, filter = {}) {
      const rows = await active(userId, filter).selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').execute();
      return rows.map(toDeployment);
    },

    async transition(id, from, patch) {
      if (from.length === 0) return null;
      const set = toUpdate(patch);
      // One statement, so the status check and the change are atomic (as backtests.transition).
      const row = await db
        .updateTable('deployments')
        .set(Object.keys(set).length > 0 ? set : (eb) => ({ status: eb.ref('status') }))
        .where('id', '=', id)
        .where('status', 'in', [...from])
        .returningAll()
        .executeTakeFirst();
      return row ? toDeployment(row) : null;
    },

    async update(id, patch) {
      const set = toUpdate(patch);
      const row = await db
        .updateTable('deployments')
        .set(Object.keys(set).length > 0 ? set : (eb) => ({ status: eb.ref('status') }))
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirst();
      return row ? toDeployment(row) : null;
    },

    async delete(userId, id) {
      const result = await db.deleteFrom('deployments').where('id', '=', id).where('user_id', '=', userId).executeTakeFirst();
      if (Number(result.numDeletedRows) === 0) return false;
      await db.deleteFrom('orders').where('deployment_id', '=', id).where('user_id', '=', userId).execute();
      await db.deleteFrom('deployment_logs').where('deployment_id', '=', id).where('user_id', '=', userId).execute();
      return true;
    },

    async listByStatus(statuses, limit, after) {
      if (statuses.length === 0) return [];
      let query = db
        .selectFrom('deployments')
        .selectAll()
        .where('status', 'in', [...statuses]);
      if (after) query = query.where((eb) => eb(eb.refTuple('created_at', 'id'), '>', eb.tuple(after.createdAt, after.id)));
      const rows = await query.orderBy('created_at', 'asc').orderBy('id', 'asc').limit(Math.max(0, limit)).execute();
      return rows.map(toDeployment);
    },

    async listByStrategy(userId, strategyId, { createdFrom, limit }) {
      // The (user_id, created_at, id) index narrows to the user's deployments since `createdFrom`.
      const rows = await db
        .selectFrom('deployments')
        .selectAll()
        .where('user_id', '=', userId)
        .where('strategy_id', '=', strategyId)
        .where('created_at', '>=', createdFrom)
        .orderBy('created_at', 'asc')
        .orderBy('id', 'asc')
        .limit(Math.max(0, limit))
        .execute();
      return rows.map(toDeployment);
    },

    // Leases: one UPDATE ... WHERE each, so the check and the change are atomic (a row lock on
    // PostgreSQL: of concurrent acquirers the others re-check the WHERE after the winner commits).
    // `lease_until` is ISO-8601 text compared bytewise (`collate "C"` on PostgreSQL).

    async acquireLease(deploymentId, owner, untilIso, nowIso) {
      const result = await db
        .updateTable('deployments')
        .set({ lease_owner: owner, lease_until: untilIso })
        .where('id', '=', deploymentId)
        .where((eb) => eb.or([eb('lease_owner', 'is', null), eb('lease_until', 'is', null), eb('lease_until', '<', nowIso), eb('lease_owner', '=', owner)]))
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },

    async renewLease(deploymentId, owner, untilIso, nowIso) {
      const result = await db
        .updateTable('deployments')
        .set({ lease_until: untilIso })
        .where('id', '=', deploymentId)
        .where('lease_owner', '=', owner)
        .where('lease_until', '>=', nowIso)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },

    async releaseLease(deploymentId, owner) {
      await db
        .updateTable('deployments')
        .set({ lease_owner: null, lease_until: null })
        .where('id', '=', deploymentId)
        .where('lease_owner', '=', owner)
        .execute();
    },
  };
}

/** Deployment log lines, oldest first by (timestamp, seq). */
export function createDeploymentLogRepository({ db }: QueryContext): DeploymentLogRepository {
  return {
    async append(entries) {
      if (entries.length === 0) return;
      for (let i = 0; i < entries.length; i += 500) {
        const rows = entries.slice(i, i + 500).map((e) => ({
          deployment_id: e.deploymentId,
          user_id: e.userId,
          timestamp: e.timestamp,
          level: e.level,
          message: e.message,
        }));
        await db.insertInto('deployment_logs').values(rows).execute();
      }
    },

    async list(userId, deploymentId, { since, after, limit }) {
      let query = db
        .selectFrom('deployment_logs')
        .select(['seq', 'deployment_id', 'user_id', 'timestamp', 'level', 'message'])
        .where('deployment_id', '=', deploymentId)
        .where('user_id', '=', userId);
      if (since !== undefined) query = query.where('timestamp', '>=', since);
      if (after !== undefined) {
        query = query.where((eb) => eb.or([eb('timestamp', '>', after.timestamp), eb.and([eb('timestamp', '=', after.timestamp), eb('seq', '>', after.seq)])]));
      }
      const rows = await query.orderBy('timestamp', 'asc').orderBy('seq', 'asc').limit(Math.max(0, limit)).execute();
      return rows.map(
        (r): StoredDeploymentLogRecord => ({
          seq: Number(r.seq),
          deploymentId: r.deployment_id,
          userId: r.user_id,
          timestamp: r.timestamp,
          level: r.level as DeploymentLogRecord['level'],
          message: r.message,
        }),
      );
    },
  };
}

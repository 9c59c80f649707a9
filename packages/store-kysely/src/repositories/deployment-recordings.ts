import type { Insertable, Kysely, Selectable } from 'kysely';
import type { DeploymentRecordingRepository } from '@stratbox/core';
import type { Database, DriftCandlesTable, DriftIntentsTable, DriftRunsTable } from '../schema.js';
import { atomically, type QueryContext } from './query-context.js';

type RecordedCandle = Parameters<DeploymentRecordingRepository['recordCandle']>[0];
type RecordedIntent = Parameters<DeploymentRecordingRepository['recordIntents']>[0][number];
type RecordedRun = Parameters<DeploymentRecordingRepository['recordRun']>[0];

/** Rows per insert statement (SQLite's bound-parameter limit: 17 columns each). */
const BATCH = 200;

const candleRow = (c: RecordedCandle): Insertable<DriftCandlesTable> => ({
  deployment_id: c.deploymentId,
  time: c.time,
  symbol: c.symbol,
  open: c.open,
  high: c.high,
  low: c.low,
  close: c.close,
  volume: c.volume,
  equity: c.equity,
  recorded_at: c.recordedAt,
});

const toCandle = (row: Selectable<DriftCandlesTable>): RecordedCandle => ({
  deploymentId: row.deployment_id,
  symbol: row.symbol,
  time: Number(row.time),
  open: row.open,
  high: row.high,
  low: row.low,
  close: row.close,
  volume: row.volume,
  equity: row.equity,
  recordedAt: row.recorded_at,
});

const intentRow = (i: RecordedIntent): Insertable<DriftIntentsTable> => ({
  id: i.id,
  deployment_id: i.deploymentId,
  candle_time: i.candleTime,
  source: i.source,
  kind: i.kind,
  symbol: i.symbol,
  side: i.side,
  type: i.type,
  quantity: i.quantity,
  size: i.size,
  price: i.price,
  reduce_only: i.reduceOnly ? 1 : 0,
  close_all: i.closeAll ? 1 : 0,
  tag: i.tag,
  guest_id: i.guestId,
  recorded_at: i.recordedAt,
});

const toIntent = (row: Selectable<DriftIntentsTable>): RecordedIntent => ({
  id: row.id,
  deploymentId: row.deployment_id,
  candleTime: Number(row.candle_time),
  source: row.source as RecordedIntent['source'],
  kind: row.kind as RecordedIntent['kind'],
  symbol: row.symbol,
  side: row.side as RecordedIntent['side'],
  type: row.type as RecordedIntent['type'],
  quantity: row.quantity,
  size: row.size,
  price: row.price,
  reduceOnly: Number(row.reduce_only) === 1,
  closeAll: Number(row.close_all) === 1,
  tag: row.tag,
  guestId: row.guest_id,
  recordedAt: row.recorded_at,
});

const toRun = (row: Selectable<DriftRunsTable>): RecordedRun => ({
  deploymentId: row.deployment_id,
  startedAt: row.started_at,
  startEquity: row.start_equity,
  resumed: Number(row.resumed) === 1,
});

/** Inserts the intents whose ids are new, in the order given (their `seq` order). */
async function insertIntents(db: Kysely<Database>, intents: readonly RecordedIntent[]) {
  for (let i = 0; i < intents.length; i += BATCH) {
    await db
      .insertInto('drift_intents')
      .values(intents.slice(i, i + BATCH).map(intentRow))
      .onConflict((oc) => oc.column('id').doNothing())
      .execute();
  }
}

/** What deployments recorded as they ran: candles once by (deployment, time, symbol), intents once by id, runs appended. */
export function createDeploymentRecordingRepository({ db }: QueryContext): DeploymentRecordingRepository {
  return {
    async recordCandle(candle, intents) {
      await atomically(db, async (trx) => {
        await trx
          .insertInto('drift_candles')
          .values(candleRow(candle))
          .onConflict((oc) => oc.columns(['deployment_id', 'time', 'symbol']).doNothing())
          .execute();
        await insertIntents(trx, intents);
      });
    },

    async recordIntents(intents) {
      if (intents.length === 0) return;
      await atomically(db, (trx) => insertIntents(trx, intents));
    },

    async recordRun(run) {
      await db
        .insertInto('drift_runs')
        .values({ deployment_id: run.deploymentId, started_at: run.startedAt, start_equity: run.startEquity, resumed: run.resumed ? 1 : 0 })
        .execute();
    },

    async listCandles(deploymentId, from, to) {
      const rows = await db
        .selectFrom('drift_candles')
        .selectAll()
        .where('deployment_id', '=', deploymentId)
        .where('time', '>=', from)
        .where('time', '<', to)
        .orderBy('time')
        .orderBy('symbol')
        .execute();
      return rows.map(toCandle);
    },

    async listIntents(deploymentId, from, to) {
      const rows = await db
        .selectFrom('drift_intents')
        .selectAll()
        .where('deployment_id', '=', deploymentId)
        .where('candle_time', '>=', from)
        .where('candle_time', '<', to)
        .orderBy('seq')
        .execute();
      return rows.map(toIntent);
    },

    async listRuns(deploymentId) {
      const rows = await db.selectFrom('drift_runs').selectAll().where('deployment_id', '=', deploymentId).orderBy('seq').execute();
      return rows.map(toRun);
    },

    async span(deploymentId) {
      const row = await db
        .selectFrom('drift_candles')
        .where('deployment_id', '=', deploymentId)
        .select((eb) => [eb.fn.min('time').as('first'), eb.fn.max('time').as('last'), eb.fn.countAll<number | string | bigint>().as('count')])
        .executeTakeFirstOrThrow();
      // PostgreSQL answers bigint values and counts as strings.
      const count = Number(row.count);
      return count === 0 || row.first === null || row.last === null ? null : { first: Number(row.first), last: Number(row.last), count };
    },

    async deleteByDeployment(deploymentId) {
      await atomically(db, async (trx) => {
        await trx.deleteFrom('drift_candles').where('deployment_id', '=', deploymentId).execute();
        await trx.deleteFrom('drift_intents').where('deployment_id', '=', deploymentId).execute();
        await trx.deleteFrom('drift_runs').where('deployment_id', '=', deploymentId).execute();
        await trx.deleteFrom('drift_reports').where('deployment_id', '=', deploymentId).execute();
        await trx.deleteFrom('drift_thresholds').where('deployment_id', '=', deploymentId).execute();
      });
    },
  };
}

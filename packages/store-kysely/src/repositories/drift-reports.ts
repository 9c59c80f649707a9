import type { DriftReportRepository, StoredDriftReport } from '@stratbox/core';
import type { QueryContext } from './query-context.js';

type Thresholds = Parameters<DriftReportRepository['saveThresholds']>[1];

/** Stored drift reports, one per (deployment, window key), and each deployment's alert thresholds: JSON text, upserted. */
export function createDriftReportRepository({ db }: QueryContext): DriftReportRepository {
  return {
    async find(deploymentId, windowKey) {
      const row = await db
        .selectFrom('drift_reports')
        .selectAll()
        .where('deployment_id', '=', deploymentId)
        .where('window_key', '=', windowKey)
        .executeTakeFirst();
      if (!row) return null;
      return {
        deploymentId: row.deployment_id,
        windowKey: row.window_key,
        recordedUpTo: Number(row.recorded_up_to),
        report: JSON.parse(row.report) as StoredDriftReport['report'],
        updatedAt: row.updated_at,
      };
    },

    async save(report) {
      const values = {
        deployment_id: report.deploymentId,
        window_key: report.windowKey,
        recorded_up_to: report.recordedUpTo,
        report: JSON.stringify(report.report),
        updated_at: report.updatedAt,
      };
      await db
        .insertInto('drift_reports')
        .values(values)
        .onConflict((oc) =>
          oc
            .columns(['deployment_id', 'window_key'])
            .doUpdateSet({ recorded_up_to: values.recorded_up_to, report: values.report, updated_at: values.updated_at }),
        )
        .execute();
    },

    async findThresholds(deploymentId) {
      const row = await db.selectFrom('drift_thresholds').select('thresholds').where('deployment_id', '=', deploymentId).executeTakeFirst();
      return row ? (JSON.parse(row.thresholds) as Thresholds) : null;
    },

    async saveThresholds(deploymentId, thresholds) {
      const text = JSON.stringify(thresholds);
      await db
        .insertInto('drift_thresholds')
        .values({ deployment_id: deploymentId, thresholds: text })
        .onConflict((oc) => oc.column('deployment_id').doUpdateSet({ thresholds: text }))
        .execute();
    },
  };
}

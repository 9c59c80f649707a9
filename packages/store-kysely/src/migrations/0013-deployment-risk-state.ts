import { sql, type Kysely, type Migration } from 'kysely';
import type { DialectName } from '../dialect-name.js';

/**
 * The risk guard's memory on `deployments`: one nullable JSON text column, `risk_state` (the peak
 * equity since the deployment started and the UTC day's starting equity), so that a drawdown or
 * a daily loss is measured from the same figures after a restart of the service. Existing
 * deployments read it as null: their guard starts from its first reading.
 *
 * Like 0012 it completes when run again after stopping half-way.
 */
export function deploymentRiskStateMigration(dialect: DialectName): Migration {
  return {
    async up(db: Kysely<any>) {
      if (dialect === 'postgres') {
        await sql`alter table deployments add column if not exists risk_state text`.execute(db);
        return;
      }
      const existing = await sql<{ name: string }>`pragma table_info(deployments)`.execute(db);
      if (!existing.rows.some((r) => r.name === 'risk_state')) await sql`alter table deployments add column risk_state text`.execute(db);
    },

    async down(db: Kysely<any>) {
      await db.schema.alterTable('deployments').dropColumn('risk_state').execute();
    },
  };
}

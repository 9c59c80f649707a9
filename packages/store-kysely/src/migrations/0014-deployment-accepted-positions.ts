import { sql, type Kysely, type Migration } from 'kysely';
import type { DialectName } from '../dialect-name.js';

/**
 * The positions a deployment's owner accepted at a restart, on `deployments`: one nullable JSON
 * text column, `accepted_positions` (signed quantity by symbol), so that a position accepted after
 * a `positionMismatch` halt is still taken as explained after a restart of the service. Existing
 * deployments read it as null: nothing accepted.
 *
 * Like 0012 and 0013 it completes when run again after stopping half-way.
 */
export function deploymentAcceptedPositionsMigration(dialect: DialectName): Migration {
  return {
    async up(db: Kysely<any>) {
      if (dialect === 'postgres') {
        await sql`alter table deployments add column if not exists accepted_positions text`.execute(db);
        return;
      }
      const existing = await sql<{ name: string }>`pragma table_info(deployments)`.execute(db);
      if (!existing.rows.some((r) => r.name === 'accepted_positions')) await sql`alter table deployments add column accepted_positions text`.execute(db);
    },

    async down(db: Kysely<any>) {
      await db.schema.alterTable('deployments').dropColumn('accepted_positions').execute();
    },
  };
}

import { sql, type Kysely, type Migration } from 'kysely';
import type { DialectName } from '../dialect-name.js';

/**
 * Deployment leases: which process runs a deployment. Two nullable columns on `deployments`,
 * `lease_owner` (the process's owner id) and `lease_until` (ISO-8601 UTC expiry, compared as a
 * string: on PostgreSQL bytewise, `collate "C"`, as the other timestamps). A lease is taken and
 * renewed with single `update ... where` statements (see repositories/deployments.ts).
 *
 * Like the earlier migrations it completes when run again after stopping half-way: PostgreSQL
 * adds the columns `if not exists`; SQLite, which has no such clause, checks `table_info` first.
 */
export function deploymentLeasesMigration(dialect: DialectName): Migration {
  const columns = [
    ['lease_owner', sql`text`],
    ['lease_until', dialect === 'postgres' ? sql`text collate "C"` : sql`text`],
  ] as const;

  return {
    async up(db: Kysely<any>) {
      if (dialect === 'postgres') {
        for (const [name, type] of columns) await sql`alter table deployments add column if not exists ${sql.ref(name)} ${type}`.execute(db);
        return;
      }
      const existing = await sql<{ name: string }>`pragma table_info(deployments)`.execute(db);
      const names = new Set(existing.rows.map((r) => r.name));
      for (const [name, type] of columns) {
        if (!names.has(name)) await sql`alter table deployments add column ${sql.ref(name)} ${type}`.execute(db);
      }
    },

    async down(db: Kysely<any>) {
      for (const [name] of [...columns].reverse()) await db.schema.alterTable('deployments').dropColumn(name).execute();
    },
  };
}

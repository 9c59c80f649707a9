import { sql, type Kysely, type Migration } from 'kysely';
import type { DialectName } from '../dialect-name.js';

/**
 * A migration that adds nullable columns to `deployments` (name and SQL type each), as the
 * live-trading migrations from 0012 on do. It completes when run again after stopping half-way:
 * PostgreSQL adds the columns `if not exists`; SQLite, which has no such clause, checks
 * `table_info` first.
 */
export function addDeploymentColumnsMigration(dialect: DialectName, columns: ReadonlyArray<readonly [name: string, type: 'text' | 'integer']>): Migration {
  return {
    async up(db: Kysely<any>) {
      if (dialect === 'postgres') {
        for (const [name, type] of columns) await sql`alter table deployments add column if not exists ${sql.ref(name)} ${sql.raw(type)}`.execute(db);
        return;
      }
      const existing = await sql<{ name: string }>`pragma table_info(deployments)`.execute(db);
      const names = new Set(existing.rows.map((r) => r.name));
      for (const [name, type] of columns) {
        if (!names.has(name)) await sql`alter table deployments add column ${sql.ref(name)} ${sql.raw(type)}`.execute(db);
      }
    },

    async down(db: Kysely<any>) {
      for (const [name] of [...columns].reverse()) await db.schema.alterTable('deployments').dropColumn(name).execute();
    },
  };
}

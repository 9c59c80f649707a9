import { sql, type Kysely, type Migration } from 'kysely';
import type { DialectName } from '../dialect-name.js';

/**
 * Live-trading safety on `deployments`: six nullable JSON text columns, `risk` (the limits in
 * force), `halt` (why and when it was halted), `preflight` (the last pre-flight report),
 * `reconciliation` (the state of continuous reconciliation), `risk_state` (the risk guard's peak
 * equity and the UTC day's starting equity, so a drawdown or a daily loss is measured from the
 * same figures after a restart of the service) and `accepted_positions` (signed quantity by
 * symbol its owner accepted at a restart after a `positionMismatch` halt); and two nullable
 * settings the pre-flight applies, `leverage` (integer) and `margin_mode` (text, 'isolated' or
 * 'cross'). Existing deployments read them all as null: no limits, never halted, no report yet,
 * nothing remembered or accepted, the account's own leverage and margin mode kept.
 *
 * Like 0006 it completes when run again after stopping half-way: PostgreSQL adds the columns
 * `if not exists`; SQLite, which has no such clause, checks `table_info` first.
 */
export function deploymentSafetyMigration(dialect: DialectName): Migration {
  const columns = [
    ['risk', 'text'],
    ['halt', 'text'],
    ['preflight', 'text'],
    ['reconciliation', 'text'],
    ['risk_state', 'text'],
    ['accepted_positions', 'text'],
    ['leverage', 'integer'],
    ['margin_mode', 'text'],
  ] as const;

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

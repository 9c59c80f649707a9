import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../dialect-name.js';

/** The columns of `table` in the schema a migration runs in, so a step can add or drop a column only when (not) there. */
export async function columnsOf(db: Kysely<any>, dialect: DialectName, table: string): Promise<Set<string>> {
  const query =
    dialect === 'postgres'
      ? sql<{ name: string }>`select column_name as name from information_schema.columns where table_schema = current_schema() and table_name = ${table}`
      : sql<{ name: string }>`select name from pragma_table_info(${table})`;
  const { rows } = await query.execute(db);
  return new Set(rows.map((r) => r.name));
}

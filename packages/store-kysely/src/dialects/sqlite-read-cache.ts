import type BetterSqlite3 from 'better-sqlite3';

type Database = InstanceType<typeof BetterSqlite3>;
type Statement = ReturnType<Database['prepare']>;

/** What Kysely's SQLite driver calls on a prepared statement. */
export interface CachedStatement {
  readonly reader: boolean;
  all(parameters?: unknown): unknown[];
  run(parameters?: unknown): BetterSqlite3.RunResult;
  iterate(parameters?: unknown): IterableIterator<unknown>;
}

const MAX_ROWS = 256;
const MAX_ENTRIES = 1024;

const cacheableParameter = (p: unknown) => p === null || typeof p === 'string' || typeof p === 'number' || typeof p === 'bigint';

/**
 * Remembers the rows of read-only queries until anything is written. On this machine turning
 * twenty rows into JavaScript objects costs about as much as serving a small HTTP request, and a
 * busy API reads the same lists over and over.
 *
 * Correct because every query of the store runs on this one connection: a statement that may
 * write (including `UPDATE ... RETURNING`, `BEGIN`, `COMMIT` and `ROLLBACK`) empties the cache
 * before it runs, and a commit by ANY other connection or process to the same file is seen
 * through `PRAGMA data_version`, checked before every cached read. Only small results (at most
 * 256 rows, no blobs) are kept, and each hit returns fresh row objects, so callers may change
 * what they get.
 */
export function createReadCache(database: Database) {
  const entries = new Map<string, unknown[]>();
  const dataVersion = database.prepare('pragma data_version').pluck();
  let seenVersion = dataVersion.get();

  function fresh(): void {
    const version = dataVersion.get();
    if (version !== seenVersion) {
      entries.clear();
      seenVersion = version;
    }
  }

  return {
    wrap(sql: string, statement: Statement): CachedStatement {
      if (!statement.readonly || !statement.reader) {
        return {
          reader: statement.reader,
          all: (parameters) => {
            entries.clear();
            return statement.all(parameters as unknown[]);
          },
          run: (parameters) => {
            entries.clear();
            return statement.run(parameters as unknown[]);
          },
          iterate: (parameters) => {
            entries.clear();
            return statement.iterate(parameters as unknown[]);
          },
        };
      }
      return {
        reader: true,
        all(parameters) {
          const list = (parameters ?? []) as unknown[];
          if (!Array.isArray(list) || !list.every(cacheableParameter)) return statement.all(list);
          fresh();
          const key = `${sql}\u0000${list.map((p) => `${typeof p}:${String(p)}`).join('\u0000')}`;
          const hit = entries.get(key);
          if (hit) return hit.map((row) => ({ ...(row as object) }));
          const rows = statement.all(list);
          const first = rows[0] as Record<string, unknown> | undefined;
          if (rows.length <= MAX_ROWS && !(first && Object.values(first).some((v) => v instanceof Uint8Array))) {
            if (entries.size >= MAX_ENTRIES) entries.delete(entries.keys().next().value as string);
            entries.set(
              key,
              rows.map((row) => ({ ...(row as object) })),
            );
          }
          return rows;
        },
        run: (parameters) => statement.run(parameters as unknown[]),
        iterate: (parameters) => statement.iterate(parameters as unknown[]),
      };
    },
    clear: () => entries.clear(),
  };
}

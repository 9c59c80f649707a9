/** The SQL databases the Kysely store supports. */
export type DialectName = 'sqlite' | 'postgres';

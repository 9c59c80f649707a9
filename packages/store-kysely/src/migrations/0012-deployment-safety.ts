import type { Migration } from 'kysely';
import type { DialectName } from '../dialect-name.js';
import { addDeploymentColumnsMigration } from './add-deployment-columns.js';

/**
 * Live-trading safety on `deployments`: four nullable JSON text columns, `risk` (the limits in
 * force), `halt` (why and when it was halted), `preflight` (the last pre-flight report) and
 * `reconciliation` (the state of continuous reconciliation). Existing deployments read them as
 * null: no limits, never halted, no report yet.
 */
export function deploymentSafetyMigration(dialect: DialectName): Migration {
  return addDeploymentColumnsMigration(dialect, [
    ['risk', 'text'],
    ['halt', 'text'],
    ['preflight', 'text'],
    ['reconciliation', 'text'],
  ]);
}

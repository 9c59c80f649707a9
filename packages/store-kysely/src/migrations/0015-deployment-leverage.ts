import type { Migration } from 'kysely';
import type { DialectName } from '../dialect-name.js';
import { addDeploymentColumnsMigration } from './add-deployment-columns.js';

/**
 * The exchange settings the pre-flight applies, on `deployments`: `leverage` (integer) and
 * `margin_mode` (text, 'isolated' or 'cross'), both nullable. Existing deployments read them as
 * null: the account's own leverage and margin mode are kept.
 */
export function deploymentLeverageMigration(dialect: DialectName): Migration {
  return addDeploymentColumnsMigration(dialect, [
    ['leverage', 'integer'],
    ['margin_mode', 'text'],
  ]);
}

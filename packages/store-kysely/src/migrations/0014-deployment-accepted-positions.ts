import type { Migration } from 'kysely';
import type { DialectName } from '../dialect-name.js';
import { addDeploymentColumnsMigration } from './add-deployment-columns.js';

/**
 * The positions a deployment's owner accepted at a restart, on `deployments`: one nullable JSON
 * text column, `accepted_positions` (signed quantity by symbol), so that a position accepted after
 * a `positionMismatch` halt is still taken as explained after a restart of the service. Existing
 * deployments read it as null: nothing accepted.
 */
export function deploymentAcceptedPositionsMigration(dialect: DialectName): Migration {
  return addDeploymentColumnsMigration(dialect, [['accepted_positions', 'text']]);
}

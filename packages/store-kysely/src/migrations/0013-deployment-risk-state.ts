import type { Migration } from 'kysely';
import type { DialectName } from '../dialect-name.js';
import { addDeploymentColumnsMigration } from './add-deployment-columns.js';

/**
 * The risk guard's memory on `deployments`: one nullable JSON text column, `risk_state` (the peak
 * equity since the deployment started and the UTC day's starting equity), so that a drawdown or
 * a daily loss is measured from the same figures after a restart of the service. Existing
 * deployments read it as null: their guard starts from its first reading.
 */
export function deploymentRiskStateMigration(dialect: DialectName): Migration {
  return addDeploymentColumnsMigration(dialect, [['risk_state', 'text']]);
}

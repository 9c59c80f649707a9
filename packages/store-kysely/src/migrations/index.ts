import type { Migration, MigrationProvider } from 'kysely';
import type { DialectName } from '../dialect-name.js';
import { initialMigration } from './0001-initial.js';
import { backtestsAndCandlesMigration } from './0002-backtests-and-candles.js';
import { credentialsAndOrdersMigration } from './0003-credentials-and-orders.js';
import { marketplaceAndBillingMigration } from './0004-marketplace-and-billing.js';
import { deploymentLogsMigration } from './0005-deployment-logs.js';
import { deploymentLeasesMigration } from './0006-deployment-leases.js';
import { paperAccountsMigration } from './0007-paper-accounts.js';
import { backtestTradesMigration } from './0008-backtest-trades.js';
import { fundingRatesMigration } from './0009-funding-rates.js';
import { backtestLogsMigration } from './0010-backtest-logs.js';
import { optimizationsMigration } from './0011-optimizations.js';
import { deploymentSafetyMigration } from './0012-deployment-safety.js';
import { deploymentRiskStateMigration } from './0013-deployment-risk-state.js';
import { deploymentAcceptedPositionsMigration } from './0014-deployment-accepted-positions.js';
import { deploymentLeverageMigration } from './0015-deployment-leverage.js';
import { notificationsMigration } from './0016-notifications.js';
import { verificationRecordsMigration } from './0017-verification-records.js';
import { driftMigration } from './0018-drift.js';
import { purchasesByListingMigration } from './0019-purchases-by-listing.js';

/**
 * The store's migrations, in code (nothing is read from disk at runtime). Names sort in the
 * order they run; a released migration is never changed, a new one is added.
 */
export function createMigrationProvider(dialect: DialectName): MigrationProvider {
  return {
    async getMigrations(): Promise<Record<string, Migration>> {
      return {
        '0001-initial': initialMigration(dialect),
        '0002-backtests-and-candles': backtestsAndCandlesMigration(dialect),
        '0003-credentials-and-orders': credentialsAndOrdersMigration(dialect),
        '0004-marketplace-and-billing': marketplaceAndBillingMigration(dialect),
        '0005-deployment-logs': deploymentLogsMigration(dialect),
        '0006-deployment-leases': deploymentLeasesMigration(dialect),
        '0007-paper-accounts': paperAccountsMigration(dialect),
        '0008-backtest-trades': backtestTradesMigration(dialect),
        '0009-funding-rates': fundingRatesMigration(dialect),
        '0010-backtest-logs': backtestLogsMigration(dialect),
        '0011-optimizations': optimizationsMigration(dialect),
        '0012-deployment-safety': deploymentSafetyMigration(dialect),
        '0013-deployment-risk-state': deploymentRiskStateMigration(dialect),
        '0014-deployment-accepted-positions': deploymentAcceptedPositionsMigration(dialect),
        '0015-deployment-leverage': deploymentLeverageMigration(dialect),
        '0016-notifications': notificationsMigration(dialect),
        '0017-verification-records': verificationRecordsMigration(dialect),
        '0018-drift': driftMigration(dialect),
        '0019-purchases-by-listing': purchasesByListingMigration(dialect),
      };
    },
  };
}

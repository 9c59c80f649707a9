import type { StoreRepositories } from '@stratbox/core';
import { createApiKeyRepository } from './api-keys.js';
import { createBacktestRepository } from './backtests.js';
import { createCandleRepository } from './candles.js';
import { createCredentialRepository } from './credentials.js';
import { createFundingRateRepository } from './funding-rates.js';
import { createDeploymentLogRepository, createDeploymentRepository } from './deployments.js';
import { createOrderRepository } from './orders.js';
import { createPaperAccountRepository } from './paper-accounts.js';
import {
  createBillingCustomerRepository,
  createLocalInvoiceRepository,
  createProcessedEventRepository,
  createSubscriptionRepository,
  createUsageCounterRepository,
} from './billing.js';
import { createListingRepository } from './listings.js';
import { createNotificationChannelRepository } from './notification-channels.js';
import { createNotificationDeliveryRepository } from './notification-deliveries.js';
import { createNotificationEventRepository } from './notification-events.js';
import { createOptimizationRepository } from './optimizations.js';
import { createPurchaseRepository } from './purchases.js';
import { createReviewRepository } from './reviews.js';
import type { QueryContext } from './query-context.js';
import { createStrategyRepository } from './strategies.js';
import { createUserRepository } from './users.js';
import { createVerificationRecordRepository } from './verification-records.js';
import { createDeploymentRecordingRepository } from './deployment-recordings.js';
import { createDriftReportRepository } from './drift-reports.js';

/** Every repository, running its queries on `context.db` (the database or one transaction). */
export function createRepositories(context: QueryContext): StoreRepositories {
  return {
    users: createUserRepository(context),
    apiKeys: createApiKeyRepository(context),
    strategies: createStrategyRepository(context),
    deployments: createDeploymentRepository(context),
    deploymentLogs: createDeploymentLogRepository(context),
    backtests: createBacktestRepository(context),
    optimizations: createOptimizationRepository(context),
    candles: createCandleRepository(context),
    fundingRates: createFundingRateRepository(context),
    credentials: createCredentialRepository(context),
    orders: createOrderRepository(context),
    paperAccounts: createPaperAccountRepository(context),
    // Marketplace and billing
    listings: createListingRepository(context),
    purchases: createPurchaseRepository(context),
    reviews: createReviewRepository(context),
    billingCustomers: createBillingCustomerRepository(context),
    subscriptions: createSubscriptionRepository(context),
    processedEvents: createProcessedEventRepository(context),
    usageCounters: createUsageCounterRepository(context),
    localInvoices: createLocalInvoiceRepository(context),
    // Notifications
    notificationChannels: createNotificationChannelRepository(context),
    notificationEvents: createNotificationEventRepository(context),
    notificationDeliveries: createNotificationDeliveryRepository(context),
    // Verified listings
    verificationRecords: createVerificationRecordRepository(context),
    // Drift reports
    deploymentRecordings: createDeploymentRecordingRepository(context),
    driftReports: createDriftReportRepository(context),
  };
}

import type { StoreRepositories } from '@stratbox/core';
import { createApiKeyRepository } from './api-keys.js';
import { createBacktestRepository } from './backtests.js';
import { createCandleRepository } from './candles.js';
import { createDeploymentRepository } from './deployments.js';
import type { QueryContext } from './query-context.js';
import { createStrategyRepository } from './strategies.js';
import { createUserRepository } from './users.js';

/** Every repository, running its queries on `context.db` (the database or one transaction). */
export function createRepositories(context: QueryContext): StoreRepositories {
  return {
    users: createUserRepository(context),
    apiKeys: createApiKeyRepository(context),
    strategies: createStrategyRepository(context),
    deployments: createDeploymentRepository(context),
    backtests: createBacktestRepository(context),
    candles: createCandleRepository(context),
  };
}

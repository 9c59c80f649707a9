import type { StoreRepositories } from '@stratbox/core';
import { createApiKeyRepository } from './api-keys.js';
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
  };
}

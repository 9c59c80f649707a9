import type { SourceChecker } from '../strategies/source.js';
import type { SandboxPool } from './sandbox-pool.js';
import { checkStrategySource } from './strategy-source.js';

/**
 * The `checkSource` for the strategy service: the host-side syntax check (line and column),
 * then a brief evaluation in the sandbox that validates the exports and `meta`. Both refuse a
 * source with `StratboxError('VALIDATION_FAILED')` (400).
 */
export function createStrategySourceChecker(pool: SandboxPool): SourceChecker {
  return async (source: string) => {
    checkStrategySource(source);
    await pool.inspectStrategy(source);
  };
}

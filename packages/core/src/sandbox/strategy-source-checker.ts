import type { SourceChecker } from '../strategies/source.js';
import { checkSourceShape } from './source-shape.js';

/** What evaluates a strategy module in the sandbox (the backtest pool's `inspectStrategy`); rejects with `StratboxError('VALIDATION_FAILED')`. */
export interface StrategyInspector {
  inspectStrategy(source: string, options: { tenant?: string }): Promise<unknown>;
}

/**
 * The `checkSource` for the strategy service: a linear host-side scan that refuses sources
 * shaped to exhaust a parser, then, in the sandbox's check lane (never on the host's thread),
 * the syntax check (line and column) and a brief evaluation that validates the exports and
 * `meta`. Both refuse a source with `StratboxError('VALIDATION_FAILED')` (400).
 */
export function createStrategySourceChecker(pool: StrategyInspector): SourceChecker {
  return async (source, context) => {
    checkSourceShape(source);
    await pool.inspectStrategy(source, context ? { tenant: context.userId } : {});
  };
}

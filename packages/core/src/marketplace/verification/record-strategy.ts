import { StratboxError, isStratboxError } from '../../errors/stratbox-error.js';
import type { StoreRepositories } from '../../ports/store.js';
import type { VerificationRecordRow } from '../../ports/store-verification.js';
import type { StrategyDeclaration, StrategyRunner } from '../../ports/strategy-runner.js';

/** The verified version's source and what it declares. */
export interface RecordStrategy {
  source: string;
  declaration: StrategyDeclaration;
}

/**
 * The version a record verifies, from the seller's strategy: its source (which must still hash to
 * the record's `sourceSha256`) and its declaration, inspected under the platform's tenant as background work. Throws
 * an error coded STRATEGY_DELETED when the version is gone, SOURCE_CHANGED when it hashes otherwise.
 */
export async function loadRecordStrategy(
  store: Pick<StoreRepositories, 'strategies'>,
  runner: Pick<StrategyRunner, 'inspect'>,
  record: VerificationRecordRow,
  tenant: string,
): Promise<RecordStrategy> {
  const version = await store.strategies.getVersion(record.sellerId, record.strategyId, record.identity.strategyVersion);
  if (!version) throw Object.assign(new Error(`The listed version ${record.identity.strategyVersion} no longer exists`), { code: 'STRATEGY_DELETED' });
  if (version.sourceSha256 !== record.identity.sourceSha256) {
    throw Object.assign(new Error('The listed version no longer has the verified source'), { code: 'SOURCE_CHANGED' });
  }
  return { source: version.source, declaration: await runner.inspect(version.source, { tenant, background: true }) };
}

/** Errors whose message speaks of data or of the platform, never quoting the strategy's code. */
const PLAIN = new Set(['DATA_NOT_FOUND', 'WARMUP_DATA_MISSING', 'STRATEGY_DELETED', 'SOURCE_CHANGED', 'UNAVAILABLE', 'POOL_CLOSED']);

/**
 * The `{ code, message }` a record keeps for a failed platform run. Records are public and never
 * reveal the source: a strategy's own error message (which may quote its code) is replaced.
 */
export function recordError(error: unknown): { code: string; message: string } {
  const code = isStratboxError(error)
    ? error.code === 'NOT_FOUND'
      ? 'DATA_NOT_FOUND'
      : error.code
    : ((error as { code?: unknown } | null)?.code ?? 'INTERNAL');
  const text = typeof code === 'string' ? code : 'INTERNAL';
  if (PLAIN.has(text) || (error instanceof StratboxError && text !== 'VALIDATION_FAILED' && text !== 'INTERNAL')) {
    return { code: text, message: error instanceof Error ? error.message : String(error) };
  }
  if (text === 'INTERNAL') return { code: text, message: 'The platform run failed unexpectedly' };
  return { code: text, message: `The strategy failed when the platform ran it (${text})` };
}

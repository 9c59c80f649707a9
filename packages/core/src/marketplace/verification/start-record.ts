import { StratboxError } from '../../errors/stratbox-error.js';
import { runTimeframes } from '../../engine/run-timeframes.js';
import type { TimeframeName } from '../../ports/market-data.js';
import type { StoreRepositories } from '../../ports/store.js';
import type { VerificationRecordRow } from '../../ports/store-verification.js';
import type { StrategyDeclaration, StrategyRunner } from '../../ports/strategy-runner.js';
import { newId } from '../../util/ids.js';
import type { VerificationSettings } from './verification-settings.js';

/** What a new record verifies: a listing's version, where and when. */
export interface NewVerificationRecordInput {
  listingId: string;
  sellerId: string;
  strategyId: string;
  strategyVersion: number;
  /** The listing's symbols; default BTC/USDT:USDT (LINEAR) or BTC/USDT (SPOT). */
  symbols?: string[] | undefined;
  /** The listing's timeframe; default the strategy's `meta.timeframe`, else 1h. */
  timeframe?: string | undefined;
  /** Default: the strategy's market type. */
  marketType?: 'LINEAR' | 'SPOT' | undefined;
  /** When the listing (or its new version) was published: the forward record starts here; search effort counts what came before. */
  listedAt: string;
}

export interface NewVerificationRecordDeps {
  /** The Store, or the transaction that creates the listing. */
  store: Pick<StoreRepositories, 'strategies' | 'backtests' | 'optimizations'>;
  strategyRunner: Pick<StrategyRunner, 'inspect'>;
  settings: VerificationSettings;
}

/** The strategy's declared parameter defaults, as the strings a run takes. Throws VALIDATION_FAILED for a parameter without a default. */
export function defaultParams(declaration: StrategyDeclaration): Record<string, string> {
  const params: Record<string, string> = {};
  for (const [name, spec] of Object.entries(declaration.params ?? {})) {
    const value = (spec as { default?: unknown }).default;
    if (value === undefined) {
      const message = `The strategy declares parameter ${name} without a default; a listing is verified with the declared defaults`;
      throw new StratboxError('VALIDATION_FAILED', message, [
        { path: `meta.params.${name}`, message: 'A listed strategy must give every parameter a default' },
      ]);
    }
    params[name] = String(value);
  }
  return params;
}

/**
 * The pending record of a listing's version at listing time (not stored: the caller inserts it,
 * in the transaction that lists the version if it likes). Its identity is what a buyer runs: the
 * version's source hash, its declared parameter defaults, the symbols, timeframe and market type,
 * and the platform's run settings. Its search effort counts the seller's backtests and
 * optimization trials on the strategy (every version) created before `listedAt`. Throws
 * NOT_FOUND when the version does not exist, VALIDATION_FAILED for a strategy that cannot be
 * verified (invalid, a parameter without a default, a timeframe its higher timeframes do not fit).
 */
export async function newVerificationRecord(deps: NewVerificationRecordDeps, input: NewVerificationRecordInput): Promise<VerificationRecordRow> {
  const { store, settings } = deps;
  const strategy = await store.strategies.findById(input.sellerId, input.strategyId);
  const version = strategy ? await store.strategies.getVersion(input.sellerId, input.strategyId, input.strategyVersion) : null;
  if (!strategy || !version) throw new StratboxError('NOT_FOUND', `Strategy ${input.strategyId} version ${input.strategyVersion} not found`);
  const declaration = await deps.strategyRunner.inspect(version.source, { tenant: settings.tenant, background: true });
  const params = defaultParams(declaration);
  const timeframe = (input.timeframe ?? declaration.timeframe ?? '1h') as TimeframeName;
  const fits = runTimeframes(timeframe, declaration.timeframes as TimeframeName[] | undefined);
  if ('problem' in fits) throw new StratboxError('VALIDATION_FAILED', fits.problem, [{ path: 'body.timeframe', message: fits.problem }]);
  const marketType = input.marketType ?? strategy.marketType;
  const symbols = input.symbols && input.symbols.length > 0 ? [...input.symbols] : [marketType === 'SPOT' ? 'BTC/USDT' : 'BTC/USDT:USDT'];
  const [backtests, trials] = await Promise.all([
    store.backtests.countForStrategy(input.sellerId, input.strategyId, input.listedAt),
    store.optimizations.sumTrialsForStrategy(input.sellerId, input.strategyId, input.listedAt),
  ]);
  const listedAt = new Date(input.listedAt).toISOString();
  return {
    id: newId('verificationRecord'),
    listingId: input.listingId,
    sellerId: input.sellerId,
    strategyId: input.strategyId,
    status: 'pending',
    error: null,
    identity: {
      strategyVersion: input.strategyVersion,
      sourceSha256: version.sourceSha256,
      params,
      symbols,
      timeframe,
      marketType,
      fees: { ...settings.fees },
      slippage: settings.slippage,
      funding: settings.funding && marketType === 'LINEAR',
      initialCapital: settings.initialCapital,
    },
    backtest: null,
    forward: { start: listedAt, lastCandleAt: null, candles: 0, days: 0, metrics: null, equity: [] },
    searchEffort: { backtests, trials, total: backtests + trials },
    badge: 'insufficient',
    createdAt: listedAt,
    supersededAt: null,
    updatedAt: listedAt,
  };
}

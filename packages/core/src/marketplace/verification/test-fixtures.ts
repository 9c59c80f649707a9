import { createSandboxPool } from '../../backtests/engine/backtest-pool.js';
import { createSandboxStrategyRunner } from '../../backtests/sandbox-strategy-runner.js';
import { createStratbox, type Stratbox } from '../../create-stratbox.js';
import { manualClock, type ManualClock } from '../../deployments/live-harness-parts.js';
import type { Logger, LogFields } from '../../ports/logger.js';
import type { ListingRecord } from '../../ports/store.js';
import { createMemoryStore } from '../../testing/memory-store.js';
import { newId } from '../../util/ids.js';
import type { VerificationDeps } from './platform-backtest.js';
import { newVerificationRecord } from './start-record.js';
import { resolveVerificationSettings, type VerificationSettingsInput } from './verification-settings.js';

/*
 * What the verification tests share: a service on the memory store with a hand-moved clock, the
 * real sandbox and synthetic market data (its own verification loop off, so the tests drive it),
 * a logger that keeps its lines, and a seller with a listed strategy.
 */

/** An SMA crossover that trades often on synthetic candles, with declared defaults and a warm-up. */
export const SMA_SOURCE = `export const meta = {
  timeframe: '1h',
  warmup: 8,
  params: { fast: { type: 'int', default: 3, min: 1 }, slow: { type: 'int', default: 8, min: 2 }, size: { type: 'float', default: 0.5 } },
};
export function onCandle(ctx, c) {
  const f = ctx.indicators.sma(c.symbol, ctx.params.fast);
  const s = ctx.indicators.sma(c.symbol, ctx.params.slow);
  if (f > s && !ctx.position(c.symbol)) ctx.buy(c.symbol, { size: ctx.params.size });
  if (f < s && ctx.position(c.symbol)) ctx.close(c.symbol);
}`;

export interface KeptLine {
  level: 'debug' | 'info' | 'warn' | 'error';
  message: string;
  fields?: LogFields | undefined;
}

export function keepingLogger(): Logger & { lines: KeptLine[] } {
  const lines: KeptLine[] = [];
  const at = (level: KeptLine['level']) => (message: string, fields?: LogFields) => void lines.push({ level, message, fields });
  return { lines, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

export interface Harness {
  stratbox: Stratbox;
  clock: ManualClock;
  logger: ReturnType<typeof keepingLogger>;
  deps: VerificationDeps;
  close(): Promise<void>;
}

/** A service at `start` (ISO) whose clock moves only when told. */
export async function harness(start: string, settings: VerificationSettingsInput = {}, sandboxSize = 2): Promise<Harness> {
  const clock = manualClock(Date.parse(start));
  const logger = keepingLogger();
  const strategyRunner = createSandboxStrategyRunner(createSandboxPool({ size: sandboxSize, cpuTimeMs: 60_000 }));
  const stratbox = createStratbox({ store: createMemoryStore(), logger, clock, strategyRunner, verification: { enabled: false } });
  await stratbox.start();
  const deps: VerificationDeps = {
    store: stratbox.store,
    clock,
    logger,
    strategyRunner,
    marketData: stratbox.marketData,
    settings: resolveVerificationSettings(settings),
  };
  return { stratbox, clock, logger, deps, close: () => stratbox.close() };
}

/** A seller, a strategy of `source` and a listed listing of its version 1, with its pending record stored (not yet run). */
export async function listed(
  h: Harness,
  source = SMA_SOURCE,
  options: { symbols?: string[]; beforeListing?: (sellerId: string, strategyId: string) => Promise<void> } = {},
) {
  const { userId: sellerId } = await h.stratbox.users.createUser('seller');
  const strategy = await h.stratbox.strategies.create(sellerId, { name: 'sma', description: '', source, marketType: 'LINEAR' });
  await options.beforeListing?.(sellerId, strategy.id);
  const now = h.clock.now().toISOString();
  const listing: ListingRecord = {
    id: newId('listing'),
    sellerId,
    strategyId: strategy.id,
    strategyVersion: 1,
    name: 'SMA',
    description: '',
    price: 0,
    tags: [],
    ratingSum: 0,
    reviewCount: 0,
    purchaseCount: 0,
    status: 'listed',
    createdAt: now,
    updatedAt: now,
    recordSummary: null,
  };
  await h.stratbox.store.listings.insert(listing);
  const record = await newVerificationRecord(h.deps, {
    listingId: listing.id,
    sellerId,
    strategyId: strategy.id,
    strategyVersion: 1,
    symbols: options.symbols ?? ['BTC/USDT:USDT'],
    timeframe: '1h',
    listedAt: now,
  });
  await h.stratbox.store.verificationRecords.insert(record);
  return { sellerId, strategyId: strategy.id, listing, record };
}

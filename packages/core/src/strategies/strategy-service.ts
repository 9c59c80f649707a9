import type { z } from 'zod';
import { CreateStrategyBody, type StrategyDetail, type StrategySummary, UpdateStrategyBody } from '@stratbox/contract';
import { StratboxError, notFound } from '../errors/stratbox-error.js';
import type { Clock } from '../ports/clock.js';
import type { Store, StoreRepositories, StrategyRecord, StrategyVersionRecord } from '../ports/store.js';
import { paginate } from '../util/cursor.js';
import { newId } from '../util/ids.js';
import { measureSource, type SourceChecker } from './source.js';
import { parseInput } from '../util/validate.js';

export interface StrategyServiceDeps {
  store: Store;
  clock: Clock;
  checkSource?: SourceChecker;
}

function toSummary(record: StrategyRecord): StrategySummary {
  return {
    id: record.id,
    name: record.name,
    description: record.description,
    marketType: record.marketType,
    version: record.version,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
  };
}

export type StrategyService = ReturnType<typeof createStrategyService>;

/**
 * Strategies: source code with an automatic version history. Every method is scoped to the
 * calling user; another user's strategy is NOT_FOUND.
 */
export function createStrategyService({ store, clock, checkSource }: StrategyServiceDeps) {
  async function prepareSource(userId: string, source: string) {
    const measured = measureSource(source);
    await checkSource?.(source, { userId });
    return measured;
  }

  async function detail(repos: StoreRepositories, record: StrategyRecord, version?: number): Promise<StrategyDetail> {
    const wanted = version ?? record.version;
    const [source, versions] = await Promise.all([
      repos.strategies.getVersion(record.userId, record.id, wanted),
      repos.strategies.listVersions(record.userId, record.id),
    ]);
    if (!source) throw new StratboxError('NOT_FOUND', `Strategy ${record.id} has no version ${wanted}`);
    return {
      ...toSummary(record),
      source: source.source,
      sourceVersion: source.version,
      versions: versions.map((v) => ({ version: v.version, createdAt: v.createdAt, sourceSha256: v.sourceSha256, sizeBytes: v.sizeBytes })),
    };
  }

  async function load(repos: StoreRepositories, userId: string, id: string, forUpdate = false): Promise<StrategyRecord> {
    const record = await repos.strategies.findById(userId, id, { forUpdate });
    if (!record) throw notFound('Strategy', id);
    return record;
  }

  return {
    async list(userId: string, query: { limit?: number | undefined; cursor?: string | undefined }) {
      const page = await paginate(query, (p) => store.strategies.list(userId, p));
      return { strategies: page.items.map(toSummary), nextCursor: page.nextCursor };
    },

    async get(userId: string, id: string, options: { version?: number | undefined } = {}): Promise<StrategyDetail> {
      return detail(store, await load(store, userId, id), options.version);
    },

    /** The stored source of one version, for the engine (never sent to other users). */
    async getSource(userId: string, id: string, version?: number): Promise<StrategyVersionRecord> {
      const record = await load(store, userId, id);
      const found = await store.strategies.getVersion(userId, id, version ?? record.version);
      if (!found) throw new StratboxError('NOT_FOUND', `Strategy ${id} has no version ${version}`);
      return found;
    },

    async create(userId: string, input: z.input<typeof CreateStrategyBody>): Promise<StrategyDetail> {
      const body = parseInput(CreateStrategyBody, input, 'body');
      const measured = await prepareSource(userId, body.source);
      const now = clock.now().toISOString();
      const record: StrategyRecord = {
        id: newId('strategy'),
        userId,
        name: body.name,
        description: body.description,
        marketType: body.marketType,
        version: 1,
        createdAt: now,
        updatedAt: now,
      };
      return store.transaction(async (tx) => {
        await tx.strategies.insert(record);
        await tx.strategies.insertVersion({ strategyId: record.id, userId, version: 1, source: body.source, ...measured, createdAt: now });
        return detail(tx, record);
      });
    },

    async update(userId: string, id: string, input: z.input<typeof UpdateStrategyBody>): Promise<StrategyDetail> {
      const body = parseInput(UpdateStrategyBody, input, 'body');
      const measured = body.source === undefined ? undefined : await prepareSource(userId, body.source);
      return store.transaction(async (tx) => {
        const current = await load(tx, userId, id, true);
        const now = clock.now().toISOString();
        const patch: Partial<StrategyRecord> = { updatedAt: now };
        if (body.name !== undefined) patch.name = body.name;
        if (body.description !== undefined) patch.description = body.description;
        if (body.source !== undefined && measured) {
          const latest = await tx.strategies.getVersion(userId, id, current.version);
          if (latest?.sourceSha256 !== measured.sourceSha256) {
            patch.version = current.version + 1;
            await tx.strategies.insertVersion({ strategyId: id, userId, version: patch.version, source: body.source, ...measured, createdAt: now });
          }
        }
        await tx.strategies.update(userId, id, patch);
        return detail(tx, { ...current, ...patch });
      });
    },

    async delete(userId: string, id: string): Promise<void> {
      await store.transaction(async (tx) => {
        await load(tx, userId, id, true);
        const active = await tx.deployments.countActive(userId, { strategyId: id });
        if (active > 0) {
          throw new StratboxError('CONFLICT', `Strategy ${id} has ${active} active deployment(s); stop them first`, { activeDeployments: active });
        }
        // Buyers run the seller's versions: a strategy that is on sale, or was ever sold, stays.
        const listings = await tx.listings.listByStrategy(userId, id);
        const sold = listings.find((l) => l.purchaseCount > 0);
        if (sold) {
          throw new StratboxError(
            'CONFLICT',
            `Strategy ${id} was sold on the marketplace (listing ${sold.id}, ${sold.purchaseCount} buyer(s)); buyers keep running it, so it cannot be deleted. Unlist it to stop new sales.`,
            { listingId: sold.id, purchases: sold.purchaseCount },
          );
        }
        const listed = listings.find((l) => l.status === 'listed');
        if (listed)
          throw new StratboxError('CONFLICT', `Strategy ${id} is listed on the marketplace (listing ${listed.id}); unlist it first`, { listingId: listed.id });
        const paying = listings.length > 0 ? await tx.purchases.countPendingForStrategy(userId, id) : 0;
        if (paying > 0) {
          throw new StratboxError(
            'CONFLICT',
            `Strategy ${id} has ${paying} purchase(s) being paid; it can be deleted once they are paid (then never) or their checkout expired`,
            { pendingPurchases: paying },
          );
        }
        await tx.strategies.delete(userId, id);
      });
    },
  };
}

import { afterAll, beforeAll, expect, it } from 'vitest';
import { createStratbox, type Stratbox } from '../create-stratbox.js';
import { createSilentLogger } from '../ports/logger.js';
import { createMemoryStore } from '../testing/memory-store.js';
import { newId } from '../util/ids.js';

// The record route answers what a reader needs to understand it without the listing: its name
// (kept after unlisting) and the operator's badge thresholds in force, not the defaults.

const SOURCE = "export const meta = { timeframe: '1h' };\nexport function onCandle() {}\n";
let stratbox: Stratbox;
const seller = newId('user');

beforeAll(() => {
  stratbox = createStratbox({
    store: createMemoryStore(),
    logger: createSilentLogger(),
    workerConcurrency: 0,
    optimizations: { concurrency: 0 },
    sandbox: { size: 1 },
    verification: { enabled: false, badge: { emergingDays: 30, emergingTrades: 10, establishedDays: 365, establishedTrades: 250 } },
  });
});
afterAll(() => stratbox.close());

it("answers the listing's name and the operator's badge thresholds, also once unlisted", async () => {
  const strategy = await stratbox.strategies.create(seller, { name: 'Edge', description: '', source: SOURCE, marketType: 'LINEAR' });
  const call = stratbox.api['marketplace.create'] as (ctx: unknown) => Promise<{ id: string }>;
  const listing = await call({
    params: {},
    query: {},
    headers: {},
    userId: seller,
    body: { strategyId: strategy.id, name: 'Edge rider', description: '', price: 0, tags: [] },
  });
  const thresholds = { emergingDays: 30, emergingTrades: 10, establishedDays: 365, establishedTrades: 250 };
  expect(await stratbox.marketplace.records.get(newId('user'), listing.id)).toMatchObject({ name: 'Edge rider', listed: true, thresholds });
  await stratbox.marketplace.listings.unlist(seller, listing.id);
  expect(await stratbox.marketplace.records.get(newId('user'), listing.id)).toMatchObject({ name: 'Edge rider', listed: false, thresholds });
});

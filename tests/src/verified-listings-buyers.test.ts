import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStratboxClient } from '@stratbox/client';
import { waitFor } from './harness/deferred.js';
import { createUserWithCli, fastDeploymentEnv, startServerProcess, tempDataDir, type ServerProcess } from './harness/server-process.js';
import type { ServiceUser } from './harness/verification-server.js';

/*
 * Buyers' outcomes over real HTTP, against the example server as its own process with a clock
 * 60 times faster than real time (a `1m` candle closes every second) and fast deployment polls:
 * three buyers of a free listing each run it on the built-in paper exchange; with two running the
 * record shows no buyers' outcome, with the third it shows `buyers.count === 3`, naming no buyer.
 */

const SOURCE = `export const meta = { timeframe: '1m' };
export function onCandle(ctx, c) {
  if (!ctx.position(c.symbol)) ctx.buy(c.symbol, { quantity: 0.01 });
  else ctx.close(c.symbol);
}
`;

describe("verified listings over HTTP: buyers' outcomes", () => {
  const data = tempDataDir();
  let server: ServerProcess;
  let seller: ServiceUser;
  let buyers: ServiceUser[];
  const deployments: Array<{ buyer: ServiceUser; id: string }> = [];

  const newUser = async (name: string): Promise<ServiceUser> => {
    const created = await createUserWithCli(name, { DATA_DIR: data.dir });
    return { ...created, client: createStratboxClient({ baseUrl: server.baseUrl, apiKey: created.apiKey }) };
  };

  beforeAll(async () => {
    server = await startServerProcess(fastDeploymentEnv(data.dir));
    seller = await newUser('seller');
    buyers = [];
    for (const name of ['buyer-a', 'buyer-b', 'buyer-c']) buyers.push(await newUser(name));
  }, 120_000);

  afterAll(async () => {
    for (const { buyer, id } of deployments) await buyer.client.deployments.stop({ params: { id } }).catch(() => undefined);
    await server?.stop();
    data.remove();
  });

  /** The buyer buys the listing and runs it on a paper account; resolves once the deployment is running. */
  async function buyAndRun(buyer: ServiceUser, listingId: string) {
    expect((await buyer.client.marketplace.purchase({ params: { id: listingId }, body: {} })).status).toBe('completed');
    const credentialId = (await buyer.client.credentials.create({ body: { exchange: 'paper', label: 'paper', apiKey: 'paper-key', secret: 'paper-secret' } }))
      .id;
    const deployment = await buyer.client.deployments.create({ body: { strategyId: listingId, credentialId, symbols: ['BTC/USDT:USDT'], params: {} } });
    deployments.push({ buyer, id: deployment.id });
    await waitFor(
      `deployment ${deployment.id} to run`,
      async () => (await buyer.client.deployments.get({ params: { id: deployment.id } })).status === 'running',
      60_000,
      200,
    );
    return deployment.id;
  }

  it('shows the median return of 3 buyers running it on paper, none below, and names no buyer', { timeout: 300_000 }, async () => {
    const strategy = await seller.client.strategies.create({ body: { name: 'Flip', source: SOURCE } });
    const listing = await seller.client.marketplace.create({ body: { strategyId: strategy.id, name: 'Flip (buyers e2e)', price: 0, timeframe: '1m' } });
    const record = () => seller.client.marketplace.record({ params: { id: listing.id } });

    await buyAndRun(buyers[0]!, listing.id);
    await buyAndRun(buyers[1]!, listing.id);
    expect((await record()).buyers).toBeNull();

    await buyAndRun(buyers[2]!, listing.id);
    const detail = await waitFor(
      "the record to show 3 buyers' outcome",
      async () => {
        const d = await record();
        return d.buyers?.count === 3 ? d : null;
      },
      120_000,
      500,
    );
    expect(typeof detail.buyers!.medianReturn).toBe('number');
    expect(Number.isFinite(detail.buyers!.medianReturn)).toBe(true);
    // the forward record is a number or null (not yet covering their days), never something else
    expect(detail.buyers!.forwardReturnSameDays === null || Number.isFinite(detail.buyers!.forwardReturnSameDays)).toBe(true);

    // a stranger reads the same aggregate, and no buyer or deployment id is in it
    const stranger = await newUser('stranger');
    const response = await fetch(`${server.baseUrl}/api/marketplace/${listing.id}/record`, { headers: { authorization: `Bearer ${stranger.apiKey}` } });
    expect(response.status).toBe(200);
    const text = await response.text();
    expect((JSON.parse(text) as { buyers: { count: number } }).buyers.count).toBe(3);
    for (const id of [...buyers.map((b) => b.userId), ...deployments.map((d) => d.id)]) expect(text).not.toContain(id);
  });
});

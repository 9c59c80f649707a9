import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RiskLimits } from '@stratbox/contract';
import type { Stratbox } from '../create-stratbox.js';
import { startFastPaperStratbox } from './live-harness-parts.js';
import { FOUR_ORDERS } from './test-strategies.js';

/*
 * Risk limits in the running deployment: real sandbox child processes, the built-in paper
 * exchange on synthetic candles, the real supervisor and runner, a clock 400 times faster than
 * real time (a '1m' candle every 150 ms). What is checked is what the owner sees: the status,
 * the recorded halt, the orders and positions, the log.
 */

const SYMBOL = 'BTC/USDT:USDT';

/** Asks for half its equity in one position; logs what onOrder hears. */
const BIG_ENTRY = `
export const meta = { timeframe: '1m' };
let asked = false;
export function onCandle(ctx, c) {
  if (asked) return;
  asked = true;
  ctx.buy(c.symbol, { size: 0.5, tag: 'big' });
}
export function onOrder(ctx, o) {
  ctx.log('heard', o.id, o.status, o.reason);
}
`;

describe('risk limits in a running deployment', () => {
  let stratbox: Stratbox;
  let userId: string;

  beforeAll(async () => {
    stratbox = await startFastPaperStratbox({ billing: { plans: { free: { limits: { deployments: 5 } } } } });
    userId = (await stratbox.users.createUser('alice')).userId;
  }, 60_000);

  afterAll(() => stratbox?.close());

  async function deploy(source: string, risk: Partial<RiskLimits>) {
    const strategy = await stratbox.strategies.create(userId, { name: 'risk', description: '', source, marketType: 'LINEAR' });
    // One paper account per deployment, so that their positions stay apart.
    const credential = await stratbox.credentials.create(userId, { exchange: 'paper', label: 'paper', apiKey: 'k', secret: 's', testnet: false });
    const created = await stratbox.deployments.create(userId, { strategyId: strategy.id, credentialId: credential.id, symbols: [SYMBOL], risk });
    expect(created.risk).toMatchObject(risk);
    return created.id;
  }
  const get = (id: string) => stratbox.deployments.get(userId, id);
  const messages = async (id: string) => (await stratbox.deployments.logs(userId, id, { limit: 1000 })).map((l) => l.message);
  const orders = async (id: string) => (await stratbox.deployments.orders(userId, id, { limit: 100 })).orders;

  it("maxOrdersPerMinute with onBreach 'keep': halted at the fourth order, which is not sent; the entry limit cancelled, the position and its take-profit kept", async () => {
    const id = await deploy(FOUR_ORDERS, { maxOrdersPerMinute: 3, onBreach: 'keep' });
    await expect.poll(async () => (await get(id)).status, { timeout: 60_000 }).toBe('halted');
    const halted = await get(id);
    expect(halted.halt).toMatchObject({
      reason: 'maxOrdersPerMinute',
      value: 4,
      limit: 3,
      message: 'The strategy asked for 4 orders within a minute; maxOrdersPerMinute is 3',
    });
    await expect.poll(async () => (await messages(id)).some((m) => m.startsWith('Deployment halted ('))).toBe(true);

    // Three orders reached the exchange; the fourth never did.
    const all = await orders(id);
    expect(all).toHaveLength(3);
    const find = (type: string, side: string) => all.find((o) => o.type === type && o.side === side);
    expect(find('market', 'buy')?.status).toBe('filled');
    expect(find('limit', 'sell')?.status).toBe('open'); // the reduce-only take-profit stays
    expect(find('limit', 'buy')?.status).toBe('cancelled'); // the entry limit went
    const { positions } = await stratbox.deployments.positions(userId, id);
    expect(positions).toMatchObject([{ symbol: SYMBOL, side: 'long', quantity: 0.01 }]);

    const log = await messages(id);
    expect(log.filter((m) => m.startsWith('Risk limit breached'))).toEqual([
      'Risk limit breached (maxOrdersPerMinute): The strategy asked for 4 orders within a minute; maxOrdersPerMinute is 3. Halted: cancelling its entry orders, keeping its positions and their exits',
    ]);
    expect(log.find((m) => m.startsWith('Deployment halted ('))).toMatch(/^Deployment halted \(1 order\(s\) cancelled, positions kept\)/);

    // Restart from halted with the limits removed: its strategy starts afresh and asks for its four
    // orders again, all sent now; then stop flattens the account.
    expect((await get(id)).status).toBe('halted');
    const restarted = await stratbox.deployments.restart(userId, id, { risk: null });
    expect(restarted).toMatchObject({ status: 'starting', halt: null, risk: null });
    await expect.poll(async () => (await get(id)).status).toBe('running');
    await expect.poll(async () => (await orders(id)).length).toBe(7);
    expect((await get(id)).status).toBe('running');
    const stopped = await stratbox.deployments.stop(userId, id);
    expect(stopped.status).toBe('stopped');
    expect((await orders(id)).filter((o) => o.status === 'open')).toEqual([]);
    expect((await messages(id)).at(-1)).toMatch(/^Deployment stopped \(1 position\(s\) closed\)/);
  }, 90_000);

  it("maxOrdersPerMinute with onBreach 'close': every order cancelled and the position closed", async () => {
    const id = await deploy(FOUR_ORDERS, { maxOrdersPerMinute: 3 });
    await expect.poll(async () => (await get(id)).status, { timeout: 60_000 }).toBe('halted');
    await expect.poll(async () => (await messages(id)).some((m) => m.startsWith('Deployment halted ('))).toBe(true);
    expect((await messages(id)).find((m) => m.startsWith('Deployment halted ('))).toMatch(
      /^Deployment halted \(2 order\(s\) cancelled, 1 position\(s\) closed\)/,
    );
    const all = await orders(id);
    expect(all.filter((o) => o.status === 'open')).toEqual([]);
    expect(all.filter((o) => o.type === 'market' && o.side === 'sell' && o.status === 'filled')).toHaveLength(1);
    expect((await stratbox.deployments.positions(userId, id)).positions).toEqual([]);
  }, 90_000);

  it('maxPositionNotional: an entry past the cap is refused to the strategy with the reason, and the deployment keeps running', async () => {
    const id = await deploy(BIG_ENTRY, { maxPositionNotional: 1000 });
    await expect.poll(async () => (await messages(id)).some((m) => m.startsWith('heard'))).toBe(true);
    const log = await messages(id);
    const refused = log.find((m) => m.includes('refused by the risk limits'));
    expect(refused).toMatch(
      /^Order o\d+ rejected: refused by the risk limits: the BTC\/USDT:USDT position would be long [\d.]+, [\d,.]+ USDT at [\d,.]+, above maxPositionNotional 1,000.00 USDT$/,
    );
    expect(log.find((m) => m.startsWith('heard'))).toMatch(/^heard o\d+ rejected refused by the risk limits: /);
    expect(await orders(id)).toEqual([]);
    expect((await get(id)).status).toBe('running');
    await stratbox.deployments.stop(userId, id);
  }, 90_000);
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Stratbox } from '../create-stratbox.js';
import { startFastPaperStratbox } from './live-harness-parts.js';

/*
 * A spot deployment through the whole service (the real supervisor, its gateway wiring, real
 * sandbox child processes) on the built-in paper exchange: it buys, `ctx.close` sells what it
 * bought, and a stop finds nothing left to sell. Before spot positions, a spot close answered
 * "no position" and the coins stayed. The clock runs 400 times faster than real time.
 */

const SYMBOL = 'BTC/USDT';

const BUY_THEN_CLOSE = `
export const meta = { timeframe: '1m' };
let n = 0;
export function onCandle(ctx, c) {
  n++;
  const p = ctx.position(c.symbol);
  if (n === 1) ctx.buy(c.symbol, { quantity: 0.01 });
  else if (p && n < 6) { ctx.log('closing', p.quantity); ctx.close(c.symbol); }
}
export function onOrder(ctx, o) { ctx.log('heard', o.side, o.status, o.quantity, o.reason); }
`;

describe('a spot deployment on the paper exchange', () => {
  let stratbox: Stratbox;
  let userId: string;

  beforeAll(async () => {
    stratbox = await startFastPaperStratbox();
    userId = (await stratbox.users.createUser('spotty')).userId;
  }, 60_000);

  afterAll(() => stratbox?.close());

  it('closes what it bought with ctx.close, and its stop leaves the account flat', async () => {
    const strategy = await stratbox.strategies.create(userId, { name: 'spot', description: '', source: BUY_THEN_CLOSE, marketType: 'SPOT' });
    const credential = await stratbox.credentials.create(userId, { exchange: 'paper', label: 'paper', apiKey: 'k', secret: 's', testnet: false });
    const { id } = await stratbox.deployments.create(userId, { strategyId: strategy.id, credentialId: credential.id, symbols: [SYMBOL] });
    const orders = async () => (await stratbox.deployments.orders(userId, id, { limit: 100 })).orders;
    await expect.poll(async () => (await orders()).filter((o) => o.status === 'filled').length, { timeout: 60_000 }).toBe(2);
    const [sell, buy] = await orders();
    expect(buy).toMatchObject({ side: 'buy', quantity: 0.01, status: 'filled' });
    expect(sell).toMatchObject({ side: 'sell', quantity: 0.01, status: 'filled' });
    const messages = (await stratbox.deployments.logs(userId, id, { limit: 1000 })).map((l) => l.message);
    expect(messages).toContain('closing 0.01');
    expect(messages.some((m) => m.includes('no position to close'))).toBe(false);

    const stopped = await stratbox.deployments.stop(userId, id);
    expect(stopped.status).toBe('stopped');
    expect((await orders()).filter((o) => o.side === 'sell')).toHaveLength(1);
  }, 90_000);
});

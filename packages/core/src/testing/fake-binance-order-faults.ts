import type { FakeAnswer } from './fake-binance-faults.js';
import type { FakeBinance } from './fake-binance-usdm.js';

/*
 * Order-level faults of the Binance double (fake-binance-usdm.ts) for the live fault suite:
 * partial fills of a resting order, and stop (algo) orders the exchange refuses.
 */

const refusing = new WeakSet<FakeBinance>();

/** From now on the double refuses every stop order (POST /fapi/v1/algoOrder) with -2021 "Order would immediately trigger." */
export function refuseStopOrders(fake: FakeBinance): void {
  refusing.add(fake);
}

/** The answer to an algo (trigger) order request, or null for the double's default (no such route). */
export function answerAlgoOrder(fake: FakeBinance, method: string, path: string): FakeAnswer | null {
  if (method !== 'POST' || path !== '/fapi/v1/algoOrder' || !refusing.has(fake)) return null;
  return { status: 400, body: { code: -2021, msg: 'Order would immediately trigger.' } };
}

/**
 * Fills `quantity` more of a resting order at its limit price, as the matching engine would: the
 * order becomes PARTIALLY_FILLED (FILLED when nothing is left) and the one-way position moves.
 */
export function fillPart(fake: FakeBinance, clientOrderId: string, quantity: number): void {
  const order = fake.orders.get(clientOrderId);
  if (!order || (order.status !== 'NEW' && order.status !== 'PARTIALLY_FILLED')) throw new Error(`No resting order ${clientOrderId}`);
  const filled = Number(order.executedQty) + quantity;
  const price = Number(order.price);
  const before = Number(order.executedQty);
  order.avgPrice = String(before === 0 ? price : (Number(order.avgPrice) * before + price * quantity) / filled);
  order.executedQty = filled.toFixed(3);
  order.status = filled >= Number(order.origQty) ? 'FILLED' : 'PARTIALLY_FILLED';
  const amt = Number(fake.position.amt) + (order.side === 'BUY' ? 1 : -1) * quantity;
  fake.position = { amt: amt.toFixed(3), entry: amt === 0 ? '0.0' : String(price) };
}

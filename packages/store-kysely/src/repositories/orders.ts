import type { Insertable, Selectable, Updateable } from 'kysely';
import { OPEN_ORDER_STATUSES, type OrderPatch, type OrderRecord, type OrderRecordStatus, type OrderRepository } from '@stratbox/core';
import type { OrdersTable } from '../schema.js';
import type { QueryContext } from './query-context.js';

function toRow(o: OrderRecord): Insertable<OrdersTable> {
  return {
    id: o.id,
    user_id: o.userId,
    deployment_id: o.deploymentId,
    client_order_id: o.clientOrderId,
    exchange_order_id: o.exchangeOrderId,
    symbol: o.symbol,
    side: o.side,
    type: o.type,
    quantity: o.quantity,
    price: o.price,
    stop_price: o.stopPrice,
    reduce_only: o.reduceOnly ? 1 : 0,
    status: o.status,
    filled_quantity: o.filledQuantity,
    average_price: o.averagePrice,
    fee: o.fee,
    created_at: o.createdAt,
    updated_at: o.updatedAt,
  };
}

function toOrder(row: Selectable<OrdersTable>): OrderRecord {
  return {
    id: row.id,
    userId: row.user_id,
    deploymentId: row.deployment_id,
    clientOrderId: row.client_order_id,
    exchangeOrderId: row.exchange_order_id,
    symbol: row.symbol,
    side: row.side as OrderRecord['side'],
    type: row.type as OrderRecord['type'],
    quantity: row.quantity,
    price: row.price,
    stopPrice: row.stop_price,
    reduceOnly: Number(row.reduce_only) === 1,
    status: row.status as OrderRecordStatus,
    filledQuantity: row.filled_quantity,
    averagePrice: row.average_price,
    fee: row.fee,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** The columns a patch sets; undefined fields are not given. */
function toUpdate(patch: OrderPatch): Updateable<OrdersTable> {
  const set: Updateable<OrdersTable> = {};
  if (patch.exchangeOrderId !== undefined) set.exchange_order_id = patch.exchangeOrderId;
  if (patch.status !== undefined) set.status = patch.status;
  if (patch.filledQuantity !== undefined) set.filled_quantity = patch.filledQuantity;
  if (patch.averagePrice !== undefined) set.average_price = patch.averagePrice;
  if (patch.fee !== undefined) set.fee = patch.fee;
  if (patch.updatedAt !== undefined) set.updated_at = patch.updatedAt;
  return set;
}

/** Live orders; `client_order_id` is unique, so an order is never written (or sent) twice. */
export function createOrderRepository({ db }: QueryContext): OrderRepository {
  return {
    async insert(order) {
      await db.insertInto('orders').values(toRow(order)).execute();
    },

    async findById(userId, id) {
      const row = await db.selectFrom('orders').selectAll().where('id', '=', id).where('user_id', '=', userId).executeTakeFirst();
      return row ? toOrder(row) : null;
    },

    async findByClientOrderId(clientOrderId) {
      const row = await db.selectFrom('orders').selectAll().where('client_order_id', '=', clientOrderId).executeTakeFirst();
      return row ? toOrder(row) : null;
    },

    async listByDeployment(userId, deploymentId, { limit, after }) {
      let query = db.selectFrom('orders').selectAll().where('deployment_id', '=', deploymentId).where('user_id', '=', userId);
      if (after) query = query.where((eb) => eb(eb.refTuple('created_at', 'id'), '<', eb.tuple(after.createdAt, after.id)));
      const rows = await query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
      return rows.map(toOrder);
    },

    async listOpen(deploymentId) {
      const rows = await db
        .selectFrom('orders')
        .selectAll()
        .where('deployment_id', '=', deploymentId)
        .where('status', 'in', OPEN_ORDER_STATUSES)
        .orderBy('created_at', 'asc')
        .orderBy('id', 'asc')
        .execute();
      return rows.map(toOrder);
    },

    async update(id, patch, options = {}) {
      const set = toUpdate(patch);
      const expected = options.expectedStatus;
      if (expected !== undefined && expected.length === 0) return null;
      // One statement, so the status check and the change are atomic (as backtests.transition).
      let query = db
        .updateTable('orders')
        .set(Object.keys(set).length > 0 ? set : (eb) => ({ status: eb.ref('status') }))
        .where('id', '=', id);
      if (expected !== undefined) query = query.where('status', 'in', [...expected]);
      const row = await query.returningAll().executeTakeFirst();
      return row ? toOrder(row) : null;
    },
  };
}

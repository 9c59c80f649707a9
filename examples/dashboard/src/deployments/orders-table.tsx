import type { DeploymentOrderData } from '@stratbox/client';
import { formatMoney, formatPrice, formatTime } from '../ui/format.js';

export type Order = DeploymentOrderData['order'];

const price = (value: number | null) => (value === null ? '–' : formatPrice(value));

/** Orders of a deployment as a table: one row per order, its latest state. */
export function OrdersTable({ orders, caption }: { orders: Order[]; caption: string }) {
  return (
    <div className="table-wrap">
      <table className="orders-table">
        <caption className="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            <th scope="col">Updated</th>
            <th scope="col">Symbol</th>
            <th scope="col">Side</th>
            <th scope="col">Type</th>
            <th scope="col" className="numeric">
              Quantity
            </th>
            <th scope="col" className="numeric">
              Price
            </th>
            <th scope="col">Status</th>
            <th scope="col" className="numeric">
              Filled
            </th>
            <th scope="col" className="numeric">
              Average price
            </th>
            <th scope="col" className="numeric">
              Fee
            </th>
          </tr>
        </thead>
        <tbody>
          {orders.map((o) => (
            <tr key={o.id} data-order-id={o.id}>
              <td>{formatTime(o.updatedAt)}</td>
              <th scope="row">{o.symbol}</th>
              <td className={o.side === 'buy' ? 'gain' : 'loss'}>{o.side}</td>
              <td>{o.type}</td>
              <td className="numeric">{formatPrice(o.quantity)}</td>
              <td className="numeric">{o.type === 'market' ? 'market' : price(o.price)}</td>
              <td>{o.status.replace('_', ' ')}</td>
              <td className="numeric">{formatPrice(o.filledQuantity)}</td>
              <td className="numeric">{price(o.averagePrice)}</td>
              <td className="numeric">{formatMoney(o.fee)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

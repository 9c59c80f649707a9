import { ExchangeGatewayError, type CreateOrderRequest } from '../ports/exchange-gateway.js';
import { CLIENT_ORDER_ID_PATTERN } from './client-order-id.js';

/**
 * Throws `invalid_order` (naming the client order id) for a request no gateway sends: a bad
 * client order id, a quantity that is not positive, a price or stop price missing for its
 * type or given to a type that takes none, a reduce-only spot order.
 */
export function checkOrderRequest(exchangeId: string, marketType: 'LINEAR' | 'SPOT', request: CreateOrderRequest): void {
  const invalid = (message: string) => new ExchangeGatewayError(exchangeId, 'invalid_order', message, { clientOrderId: request.clientOrderId });
  if (!CLIENT_ORDER_ID_PATTERN.test(request.clientOrderId)) throw invalid('A client order id is 1 to 36 characters of [A-Za-z0-9_-]');
  if (!(Number.isFinite(request.quantity) && request.quantity > 0)) throw invalid(`Order quantity must be a positive number, got ${request.quantity}`);
  if (request.type === 'limit' && !(Number.isFinite(request.price) && request.price! > 0)) throw invalid('A limit order needs a positive price');
  if (request.type !== 'limit' && request.price !== undefined) throw invalid(`A ${request.type} order takes no price`);
  if (request.type === 'stop' && !(Number.isFinite(request.stopPrice) && request.stopPrice! > 0)) throw invalid('A stop order needs a positive stopPrice');
  if (request.type !== 'stop' && request.stopPrice !== undefined) throw invalid(`A ${request.type} order takes no stopPrice`);
  if (request.reduceOnly && marketType === 'SPOT') throw invalid('Spot orders cannot be reduce-only');
}

import { expect } from 'vitest';
import { ExchangeGatewayError } from '../ports/exchange-gateway.js';

/** The ExchangeGatewayError `promise` rejects with; fails the test if it resolves or rejects with anything else. */
export async function rejection(promise: Promise<unknown>): Promise<ExchangeGatewayError> {
  const error = await promise.then(
    () => {
      throw new Error('expected the call to fail');
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ExchangeGatewayError);
  return error as ExchangeGatewayError;
}

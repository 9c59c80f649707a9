import { expect } from 'vitest';
import { StratboxClientError } from '@stratbox/client';

/** The StratboxClientError `call` rejects with; fails the test if it resolves or rejects with anything else. */
export async function failure(call: Promise<unknown>): Promise<StratboxClientError> {
  const error = await call.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(StratboxClientError);
  return error as StratboxClientError;
}

/** As `failure`, and checks the HTTP status and the error code. */
export async function expectError(call: Promise<unknown>, status: number, code: string): Promise<StratboxClientError> {
  const error = await failure(call);
  expect(error.status).toBe(status);
  expect(error.code).toBe(code);
  return error;
}

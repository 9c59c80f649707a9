import type { z } from 'zod';
import type { ErrorCode } from './error-codes.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

/**
 * One route of the contract. The Express adapter, the client and the OpenAPI generator all
 * walk the same table of these; nothing about a route is written twice.
 */
export interface RouteDef {
  method: HttpMethod;
  /** Express-style path, `:name` for path params. */
  path: string;
  summary: string;
  description?: string;
  /** `apiKey` (Bearer) unless stated; `webhook` routes are authenticated by the provider's signature. */
  auth?: 'apiKey' | 'webhook';
  params?: z.ZodType<Record<string, string>>;
  query?: z.ZodType;
  body?: z.ZodType;
  /** The body is taken raw (bytes), not parsed as JSON (webhooks). */
  rawBody?: boolean;
  successStatus: 200 | 201 | 202 | 204;
  /** `null` for 204 No Content. */
  response: z.ZodType | null;
  /** Headers of the success response beyond those every response has (documented in OpenAPI). */
  headers?: Record<string, { description: string }>;
  /** Error codes this route may answer with beyond those every route can (400, 401, 500). */
  errors: readonly ErrorCode[];
}

/** Identity helper that keeps the literal types of a route. */
export function defineRoute<const R extends RouteDef>(route: R): R {
  return route;
}

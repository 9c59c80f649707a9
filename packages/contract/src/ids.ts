import { z } from 'zod';

/**
 * Record ids are a type prefix and an unguessable URL-safe random part (docs/api-contract.md, "General").
 * The random part is at least 96 bits; Stratbox generates 128 (22 base64url characters).
 */
export const ID_PREFIXES = {
  user: 'usr',
  strategy: 'str',
  credential: 'cred',
  backtest: 'bt',
  deployment: 'dep',
  listing: 'lst',
  review: 'rev',
  purchase: 'pur',
  order: 'ord',
  optimization: 'opt',
  notificationChannel: 'nch',
  notificationEvent: 'evt',
  notificationDelivery: 'ndl',
  verificationRecord: 'vrf',
} as const;

export type IdKind = keyof typeof ID_PREFIXES;

const RANDOM_PART = '[A-Za-z0-9_-]{16,64}';

/** Regex source (no anchors) matching an id of the given kind. */
export function idPattern(kind: IdKind): string {
  return `${ID_PREFIXES[kind]}_${RANDOM_PART}`;
}

/** A zod schema for an id of one kind, e.g. `idSchema('strategy')` accepts `str_...`. */
export function idSchema(kind: IdKind) {
  const prefix = ID_PREFIXES[kind];
  return z
    .string()
    .regex(new RegExp(`^${idPattern(kind)}$`), { message: `Expected an id of the form ${prefix}_<id>` })
    .meta({ description: `Id of the form \`${prefix}_<random>\``, example: `${prefix}_4fJq0cWzYb3kR9tLmN2pXa` });
}

export const UserId = idSchema('user');
export const StrategyId = idSchema('strategy');
export const CredentialId = idSchema('credential');
export const BacktestId = idSchema('backtest');
export const DeploymentId = idSchema('deployment');
export const ListingId = idSchema('listing');
export const ReviewId = idSchema('review');
export const PurchaseId = idSchema('purchase');
export const OrderId = idSchema('order');
export const OptimizationId = idSchema('optimization');
export const NotificationChannelId = idSchema('notificationChannel');
export const NotificationEventId = idSchema('notificationEvent');
export const NotificationDeliveryId = idSchema('notificationDelivery');
export const VerificationRecordId = idSchema('verificationRecord');

import { randomBytes } from 'node:crypto';
import { ID_PREFIXES, type IdKind } from '@stratbox/contract';

/** A new id: type prefix and 128 random bits, URL-safe. */
export function newId(kind: IdKind): string {
  return `${ID_PREFIXES[kind]}_${randomBytes(16).toString('base64url')}`;
}

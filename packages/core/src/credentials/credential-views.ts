import type { z } from 'zod';
import type { Credential } from '@stratbox/contract';
import type { CredentialRecord } from '../ports/store.js';

export type CredentialView = z.output<typeof Credential>;

/** The API view of a credential: never its secrets, only the hint of its key. */
export function toCredentialView(record: CredentialRecord): CredentialView {
  return {
    id: record.id,
    exchange: record.exchange,
    label: record.label,
    testnet: record.testnet,
    keyHint: record.keyHint,
    createdAt: record.createdAt,
  };
}

/**
 * The last 4 characters of an API key, shown so users can tell their keys apart. A key shorter
 * than 8 characters gets no hint: 4 of its characters would give too much of it away.
 */
export function keyHintOf(apiKey: string): string {
  const chars = [...apiKey];
  return chars.length >= 8 ? chars.slice(-4).join('') : '';
}

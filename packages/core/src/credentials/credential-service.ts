import type { z } from 'zod';
import { CreateCredentialBody } from '@stratbox/contract';
import { StratboxError, notFound } from '../errors/stratbox-error.js';
import { isKnownExchange as defaultIsKnownExchange } from '../exchanges/ccxt-exchanges.js';
import type { Clock } from '../ports/clock.js';
import type { SecretBox } from '../ports/secret-box.js';
import type { CredentialRecord, Store } from '../ports/store.js';
import { paginate } from '../util/cursor.js';
import { newId } from '../util/ids.js';
import { keyHintOf, toCredentialView, type CredentialView } from './credential-views.js';
import { parseInput } from '../util/validate.js';

export interface CredentialServiceDeps {
  store: Store;
  clock: Clock;
  /** Seals secrets at rest (e.g. `createAesGcmSecretBox({ masterKey })`). */
  secretBox: SecretBox;
  /** Which exchange ids are accepted. Default: ccxt's exchanges and `paper`. */
  isKnownExchange?: (exchange: string) => boolean;
}

/** The secrets of a credential, as the user gave them. Server-side only. */
export interface CredentialSecrets {
  apiKey: string;
  secret: string;
  password?: string;
}

/** A credential with its secrets opened, for the deployment supervisor (`ExchangeClientPool.acquire`). */
export interface OpenedCredential {
  id: string;
  userId: string;
  exchange: string;
  label: string;
  testnet: boolean;
  secrets: CredentialSecrets;
}

export type CredentialService = ReturnType<typeof createCredentialService>;

/** What the secrets are bound to: a sealed row only opens as this credential of this user. */
export const credentialAad = (id: string, userId: string) => `credential:${id}:${userId}`;

function parseSecrets(bytes: Uint8Array, id: string): CredentialSecrets {
  try {
    const value = JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8')) as Partial<CredentialSecrets>;
    if (typeof value.apiKey === 'string' && typeof value.secret === 'string') {
      return { apiKey: value.apiKey, secret: value.secret, ...(typeof value.password === 'string' ? { password: value.password } : {}) };
    }
  } catch {
    // fall through: never echo what was read
  }
  throw new StratboxError('INTERNAL', `Credential ${id} holds unreadable secrets`);
}

/**
 * Exchange credentials. Every method is scoped to the calling user; another user's credential
 * is NOT_FOUND. Secrets are sealed by the SecretBox before they reach the store (aad
 * `credential:<id>:<userId>`), are never returned by the API methods, never logged, never put
 * in an error, and never sent into the sandbox: only `openSecrets`, for the server-side
 * deployment supervisor, returns them.
 */
export function createCredentialService({ store, clock, secretBox, isKnownExchange = defaultIsKnownExchange }: CredentialServiceDeps) {
  async function load(userId: string, id: string): Promise<CredentialRecord> {
    const record = await store.credentials.findById(userId, id);
    if (!record) throw notFound('Credential', id);
    return record;
  }

  return {
    async list(userId: string, query: { limit?: number | undefined; cursor?: string | undefined }) {
      const page = await paginate(query, (p) => store.credentials.list(userId, p));
      return { credentials: page.items.map(toCredentialView), nextCursor: page.nextCursor };
    },

    async get(userId: string, id: string): Promise<CredentialView> {
      return toCredentialView(await load(userId, id));
    },

    async create(userId: string, input: z.input<typeof CreateCredentialBody>): Promise<CredentialView> {
      const body = parseInput(CreateCredentialBody, input, 'body');
      if (!isKnownExchange(body.exchange)) {
        throw new StratboxError('VALIDATION_FAILED', `Unknown exchange "${body.exchange}"`, [
          { path: 'exchange', message: 'Use a ccxt exchange id (e.g. "binanceusdm", "bybit") or "paper"' },
        ]);
      }
      const id = newId('credential');
      // A paper credential needs no keys (the contract requires them for other exchanges): it stores empty ones, keyHint ''.
      const secrets: CredentialSecrets = {
        apiKey: body.apiKey ?? '',
        secret: body.secret ?? '',
        ...(body.password === undefined ? {} : { password: body.password }),
      };
      const record: CredentialRecord = {
        id,
        userId,
        exchange: body.exchange,
        label: body.label,
        testnet: body.testnet,
        keyHint: keyHintOf(body.apiKey ?? ''),
        secrets: await secretBox.seal(JSON.stringify(secrets), credentialAad(id, userId)),
        createdAt: clock.now().toISOString(),
      };
      await store.credentials.insert(record);
      return toCredentialView(record);
    },

    /** Deletes the credential; CONFLICT while an active deployment uses it. */
    async delete(userId: string, id: string): Promise<void> {
      await store.transaction(async (tx) => {
        const record = await tx.credentials.findById(userId, id, { forUpdate: true });
        if (!record) throw notFound('Credential', id);
        const active = await tx.deployments.countActive(userId, { credentialId: id });
        if (active > 0) {
          throw new StratboxError('CONFLICT', `Credential ${id} is used by ${active} active deployment(s); stop them first`, { activeDeployments: active });
        }
        await tx.credentials.delete(userId, id);
        await tx.paperAccounts.deleteForCredential(id);
      });
    },

    /**
     * The credential with its secrets opened. Server-side only (the deployment supervisor):
     * never expose it through the API, never log it, never pass it into the sandbox.
     */
    async openSecrets(userId: string, id: string): Promise<OpenedCredential> {
      const record = await load(userId, id);
      let plaintext: Uint8Array;
      try {
        plaintext = await secretBox.open(record.secrets, credentialAad(record.id, record.userId));
      } catch {
        throw new StratboxError('INTERNAL', `Credential ${id} cannot be decrypted (was the master key changed?)`);
      }
      try {
        return {
          id: record.id,
          userId: record.userId,
          exchange: record.exchange,
          label: record.label,
          testnet: record.testnet,
          secrets: parseSecrets(plaintext, id),
        };
      } finally {
        plaintext.fill(0);
      }
    },
  };
}

import { createHash, randomBytes } from 'node:crypto';
import { StratboxError } from '../errors/stratbox-error.js';
import type { AuthRequest, Authenticator } from '../ports/authenticator.js';
import type { Clock } from '../ports/clock.js';
import type { Store } from '../ports/store.js';
import { newId } from '../util/ids.js';

const KEY_PREFIX = 'sbx_';

/** SHA-256 of an API key. Keys carry 256 random bits, so a fast hash is enough to store them. */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** The token of an `Authorization: Bearer <token>` header, or null. */
export function bearerToken(request: AuthRequest): string | null {
  const raw = request.headers.authorization ?? request.headers.Authorization;
  const header = Array.isArray(raw) ? raw[0] : raw;
  if (typeof header !== 'string') return null;
  const match = /^Bearer\s+(\S{1,512})\s*$/i.exec(header);
  return match?.[1] ?? null;
}

export type ApiKeyService = ReturnType<typeof createApiKeyService>;

export interface ApiKeyServiceConfig {
  store: Store;
  clock: Clock;
  /**
   * How long a verified key is remembered in memory, so that busy clients do not cost a store
   * lookup per request (default 30 s; 0 turns it off). Only valid keys are remembered, at most
   * 10,000 of them.
   */
  cacheTtlMs?: number;
}

const CACHE_CAPACITY = 10_000;

/** Users and their API keys: keys are shown once at creation and stored only as a hash. */
export function createApiKeyService({ store, clock, cacheTtlMs = 30_000 }: ApiKeyServiceConfig) {
  const verified = new Map<string, { userId: string; until: number }>();
  async function issueKey(userId: string): Promise<string> {
    const apiKey = KEY_PREFIX + randomBytes(32).toString('base64url');
    await store.apiKeys.insert({ hash: hashApiKey(apiKey), userId, createdAt: clock.now().toISOString() });
    return apiKey;
  }

  const authenticate: Authenticator = async (request) => {
    const token = bearerToken(request);
    if (!token || !token.startsWith(KEY_PREFIX)) return null;
    const hash = hashApiKey(token);
    const now = Date.now();
    const cached = verified.get(hash);
    if (cached && cached.until > now) return { userId: cached.userId };
    const userId = await store.apiKeys.findUserIdByHash(hash);
    if (!userId) return null;
    if (cacheTtlMs > 0) {
      verified.delete(hash);
      if (verified.size >= CACHE_CAPACITY) verified.delete(verified.keys().next().value as string);
      verified.set(hash, { userId, until: now + cacheTtlMs });
    }
    return { userId };
  };

  return {
    /** Creates a user and its first API key. The key is returned once and never again. */
    async createUser(name: string): Promise<{ userId: string; apiKey: string }> {
      const trimmed = name.trim();
      if (!trimmed || trimmed.length > 100) throw new StratboxError('VALIDATION_FAILED', 'A user name is 1 to 100 characters');
      const userId = newId('user');
      await store.users.insert({ id: userId, name: trimmed, createdAt: clock.now().toISOString() });
      return { userId, apiKey: await issueKey(userId) };
    },
    /** Issues another API key for an existing user. */
    async createApiKey(userId: string): Promise<string> {
      if (!(await store.users.findById(userId))) throw new StratboxError('NOT_FOUND', `User ${userId} not found`);
      return issueKey(userId);
    },
    authenticate,
  };
}

import { z } from 'zod';
import { NextCursor, PageQuery, Timestamp } from './common.js';
import { CredentialId } from './ids.js';

export const CreateCredentialBody = z.strictObject({
  exchange: z.string().regex(/^[a-z0-9]{2,32}$/, { message: 'A ccxt exchange id (lower case), or "paper"' }),
  label: z.string().trim().min(1).max(100),
  apiKey: z.string().min(1).max(512),
  secret: z.string().min(1).max(4096),
  password: z.string().min(1).max(512).optional(),
  testnet: z.boolean().default(false),
});

/** A stored exchange credential. Secrets are write-only: never returned. */
export const Credential = z.object({
  id: CredentialId,
  exchange: z.string(),
  label: z.string(),
  testnet: z.boolean(),
  keyHint: z.string().meta({ description: 'Last 4 characters of the API key' }),
  createdAt: Timestamp,
});

export const ListCredentialsQuery = z.strictObject({ ...PageQuery });
export const CredentialList = z.object({ credentials: z.array(Credential), nextCursor: NextCursor });

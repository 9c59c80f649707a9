import { z } from 'zod';
import { NextCursor, PageQuery, Timestamp } from './common.js';
import { CredentialId } from './ids.js';

/** The built-in simulated exchange: it trades offline and needs no API key. */
export const PAPER_EXCHANGE = 'paper';

/**
 * `apiKey` and `secret` are required for every exchange but `paper` (400 naming the missing
 * field otherwise); a paper credential may leave them out (given, they are stored as any other).
 */
export const CreateCredentialBody = z
  .strictObject({
    exchange: z.string().regex(/^[a-z0-9]{2,32}$/, { message: 'A ccxt exchange id (lower case), or "paper"' }),
    label: z.string().trim().min(1).max(100),
    apiKey: z.string().min(1).max(512).optional().meta({ description: 'Required unless `exchange` is `paper`' }),
    secret: z.string().min(1).max(4096).optional().meta({ description: 'Required unless `exchange` is `paper`' }),
    password: z.string().min(1).max(512).optional(),
    testnet: z.boolean().default(false),
  })
  .superRefine((body, ctx) => {
    if (body.exchange === PAPER_EXCHANGE) return;
    for (const field of ['apiKey', 'secret'] as const) {
      if (body[field] === undefined) {
        ctx.addIssue({ code: 'custom', path: [field], message: `Required for exchange "${body.exchange}" (only "paper" needs no keys)` });
      }
    }
  })
  .meta({ description: 'An exchange credential. `apiKey` and `secret` are required unless `exchange` is `paper`, the built-in simulated exchange.' });

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

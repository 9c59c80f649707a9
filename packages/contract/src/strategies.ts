import { z } from 'zod';
import { MarketType, NextCursor, PageQuery, Timestamp, queryInteger } from './common.js';
import { StrategyId } from './ids.js';

/** Largest accepted strategy source, in bytes of UTF-8 (500 KB, docs/api-contract.md). */
export const MAX_SOURCE_BYTES = 512_000;

export const StrategySummary = z.object({
  id: StrategyId,
  name: z.string(),
  description: z.string(),
  marketType: MarketType,
  version: z.number().int().min(1),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export type StrategySummary = z.infer<typeof StrategySummary>;

export const StrategyVersionEntry = z.object({
  version: z.number().int().min(1),
  createdAt: Timestamp,
  sourceSha256: z.string().regex(/^[0-9a-f]{64}$/),
  sizeBytes: z.number().int().min(0),
});
export type StrategyVersionEntry = z.infer<typeof StrategyVersionEntry>;

export const StrategyDetail = StrategySummary.extend({
  source: z.string(),
  sourceVersion: z.number().int().min(1).meta({ description: 'The version `source` belongs to: the latest, or the one asked for with `?version=N`.' }),
  versions: z.array(StrategyVersionEntry).meta({ description: 'Version history, newest first.' }),
});
export type StrategyDetail = z.infer<typeof StrategyDetail>;

const Name = z.string().trim().min(1).max(200);
const Description = z.string().max(10_000);
const Source = z
  .string()
  .min(1)
  .meta({ description: `Strategy source code, at most ${MAX_SOURCE_BYTES} bytes of UTF-8 (413 beyond).` });

export const CreateStrategyBody = z.strictObject({
  name: Name,
  description: Description.default(''),
  source: Source,
  marketType: MarketType.default('LINEAR'),
});

export const UpdateStrategyBody = z
  .strictObject({ name: Name.optional(), description: Description.optional(), source: Source.optional() })
  .refine((b) => b.name !== undefined || b.description !== undefined || b.source !== undefined, {
    message: 'Give at least one of name, description, source',
  });

export const ListStrategiesQuery = z.strictObject({ ...PageQuery });
export const GetStrategyQuery = z.strictObject({
  version: queryInteger().min(1).optional().meta({ description: 'Return the source of this version instead of the latest.' }),
});

export const StrategyList = z.object({ strategies: z.array(StrategySummary), nextCursor: NextCursor });

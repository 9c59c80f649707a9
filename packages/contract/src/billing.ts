import { z } from 'zod';
import { Counter, NextCursor, PageQuery, Timestamp } from './common.js';

export const Tier = z.enum(['free', 'pro', 'team']);
export const PaidTier = z.enum(['pro', 'team']);
/**
 * `active`, `trialing` and `past_due` keep the tier's limits (the provider is still retrying a
 * failed payment while `past_due`); `canceled`, `incomplete`, `unpaid` and `paused` fall back to
 * the free plan's limits.
 */
export const SubscriptionStatus = z.enum(['active', 'trialing', 'past_due', 'canceled', 'incomplete', 'unpaid', 'paused']);

export const Subscription = z.object({
  tier: Tier,
  status: SubscriptionStatus,
  renewalDate: Timestamp.nullable(),
  cancelAtPeriodEnd: z.boolean(),
});

export const CheckoutBody = z.strictObject({ tier: PaidTier });
export const UrlResponse = z.object({ url: z.string() });
export const PortalBody = z.strictObject({}).optional();

export const Usage = z.object({ compute: Counter, backtests: Counter, deployments: Counter });

export const Invoice = z.object({
  id: z.string(),
  number: z.string().nullable(),
  status: z.string(),
  amountDue: z.number().int().meta({ description: 'In the smallest unit of `currency`' }),
  amountPaid: z.number().int(),
  currency: z.string(),
  createdAt: Timestamp,
  hostedUrl: z.string().nullable(),
  pdfUrl: z.string().nullable().meta({ description: 'Download URL' }),
});
export const InvoicesQuery = z.strictObject({ ...PageQuery });
export const InvoiceList = z.object({ invoices: z.array(Invoice), nextCursor: NextCursor });

export const WebhookAck = z.object({ received: z.literal(true) });

import { createHmac, randomBytes } from 'node:crypto';

/*
 * The signature of a webhook delivery, in the `Stratbox-Signature` header:
 * `t=<unix seconds>,v1=<hex of HMAC-SHA256(secret, t + "." + body)>`. Receivers check it with
 * `verifyWebhook` from @stratbox/client (docs/notifications.md shows the scheme by hand).
 */

/** The `Stratbox-Signature` value for `body` (the exact bytes sent, as text) signed at `unixSeconds`. */
export function signWebhook(body: string, secret: string, unixSeconds: number): string {
  const t = Math.floor(unixSeconds);
  const v1 = createHmac('sha256', secret).update(`${t}.${body}`, 'utf8').digest('hex');
  return `t=${t},v1=${v1}`;
}

/** A new signing secret: `whsec_` and 32 random bytes in base64url. */
export function newSigningSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}

import { createHash } from 'node:crypto';
import { MAX_SOURCE_BYTES } from '@stratbox/contract';
import { StratboxError } from '../errors/stratbox-error.js';

/** Size and hash of a strategy source; a source over 512,000 bytes of UTF-8 is a 413. */
export function measureSource(source: string): { sizeBytes: number; sourceSha256: string } {
  const sizeBytes = Buffer.byteLength(source, 'utf8');
  if (sizeBytes > MAX_SOURCE_BYTES) {
    throw new StratboxError('PAYLOAD_TOO_LARGE', `Strategy source is ${sizeBytes} bytes; the limit is ${MAX_SOURCE_BYTES} bytes of UTF-8`, {
      sizeBytes,
      limit: MAX_SOURCE_BYTES,
    });
  }
  return { sizeBytes, sourceSha256: createHash('sha256').update(source, 'utf8').digest('hex') };
}

/**
 * Checks a source before it is stored, e.g. for syntax errors. Throws a StratboxError
 * (VALIDATION_FAILED with `{ line, column }` details) to refuse it. `context.userId` is who saves
 * it (checks of different users take turns).
 */
export type SourceChecker = (source: string, context?: { userId: string }) => void | Promise<void>;

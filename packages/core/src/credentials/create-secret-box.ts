import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { SealedSecret, SecretBox } from '../ports/secret-box.js';

/*
 * Envelope encryption with AES-256-GCM on node:crypto. Layout of the sealed bytes:
 *
 *   offset  size  field
 *   0       1     format version (1)
 *   1       1     master key id (0..255)
 *   2       12    nonce of the key wrap
 *   14      32    data key, encrypted by the master key
 *   46      16    GCM tag of the key wrap
 *   62      12    nonce of the payload
 *   74      16    GCM tag of the payload
 *   90      n     payload, encrypted by the data key
 *
 * Both encryptions authenticate the header (version and key id) and the caller's `aad`, so
 * neither the wrapped key nor the payload can be moved to another record, another key id or
 * another format version. Data keys are zeroed after use.
 */

const FORMAT_VERSION = 1;
const KEY_BYTES = 32;
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
const HEADER_BYTES = 2;
const WRAP_NONCE = HEADER_BYTES;
const WRAPPED_KEY = WRAP_NONCE + NONCE_BYTES;
const WRAP_TAG = WRAPPED_KEY + KEY_BYTES;
const NONCE = WRAP_TAG + TAG_BYTES;
const TAG = NONCE + NONCE_BYTES;
const PAYLOAD = TAG + TAG_BYTES;

/** A 32-byte master key, as bytes or base64 (standard or URL-safe). */
export type MasterKeyInput = Uint8Array | string;

export interface AesGcmSecretBoxConfig {
  /** The current master key: 32 bytes, or their base64. New secrets are sealed with it. */
  masterKey: MasterKeyInput;
  /** Id of the current master key, written into every sealed secret (0..255). Default 1. */
  keyId?: number;
  /**
   * Earlier master keys by id, to keep opening secrets sealed before a rotation. Re-seal such
   * secrets with the current key at leisure, then drop the old key.
   */
  previousKeys?: Record<number, MasterKeyInput>;
}

/** The generic failure of `open`: the same message whatever went wrong, so nothing leaks. */
class SecretBoxError extends Error {
  override readonly name = 'SecretBoxError';
}

function toKey(input: MasterKeyInput, what: string): Buffer {
  const bytes = typeof input === 'string' ? Buffer.from(input.trim(), 'base64') : Buffer.from(input);
  if (bytes.length !== KEY_BYTES) {
    throw new TypeError(`${what} must be ${KEY_BYTES} bytes (or their base64), got ${bytes.length} bytes`);
  }
  return bytes;
}

function checkKeyId(id: number): number {
  if (!Number.isInteger(id) || id < 0 || id > 255) throw new TypeError(`A master key id must be an integer from 0 to 255, got ${id}`);
  return id;
}

/** What both encryptions authenticate: the header and the caller's aad. */
const associatedData = (header: Uint8Array, aad: string) => Buffer.concat([header, Buffer.from(aad, 'utf8')]);

function encrypt(key: Buffer, plaintext: Uint8Array, aad: Buffer): { nonce: Buffer; ciphertext: Buffer; tag: Buffer } {
  const nonce = randomBytes(NONCE_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, nonce);
  cipher.setAAD(aad);
  const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return { nonce, ciphertext, tag: cipher.getAuthTag() };
}

function decrypt(key: Buffer, nonce: Uint8Array, ciphertext: Uint8Array, tag: Uint8Array, aad: Buffer): Buffer {
  const decipher = createDecipheriv('aes-256-gcm', key, nonce);
  decipher.setAAD(aad);
  decipher.setAuthTag(tag);
  return Buffer.concat([decipher.update(ciphertext), decipher.final()]);
}

/**
 * A SecretBox that seals with AES-256-GCM under a fresh data key per secret, the data key
 * wrapped by the master key (see the port for the guarantees). Throws at once if a key is not
 * 32 bytes.
 *
 * @example
 * const secretBox = createAesGcmSecretBox({ masterKey: process.env.STRATBOX_MASTER_KEY! });
 * // make a key: node -e "console.log(require('crypto').randomBytes(32).toString('base64'))"
 */
export function createAesGcmSecretBox(config: AesGcmSecretBoxConfig): SecretBox {
  const currentId = checkKeyId(config.keyId ?? 1);
  const keys = new Map<number, Buffer>();
  for (const [id, key] of Object.entries(config.previousKeys ?? {})) keys.set(checkKeyId(Number(id)), toKey(key, `Master key ${id}`));
  keys.set(currentId, toKey(config.masterKey, 'The master key'));
  const masterKey = keys.get(currentId)!;

  return {
    async seal(plaintext, aad) {
      const data = typeof plaintext === 'string' ? Buffer.from(plaintext, 'utf8') : plaintext;
      const header = Uint8Array.of(FORMAT_VERSION, currentId);
      const ad = associatedData(header, aad);
      const dataKey = randomBytes(KEY_BYTES);
      try {
        const wrapped = encrypt(masterKey, dataKey, ad);
        const payload = encrypt(dataKey, data, ad);
        const sealed = Buffer.concat([header, wrapped.nonce, wrapped.ciphertext, wrapped.tag, payload.nonce, payload.tag, payload.ciphertext]);
        return new Uint8Array(sealed.buffer, sealed.byteOffset, sealed.byteLength);
      } finally {
        dataKey.fill(0);
      }
    },

    async open(sealed: SealedSecret, aad) {
      const fail = () => new SecretBoxError('The sealed secret cannot be opened (wrong key, wrong record or changed bytes)');
      if (!(sealed instanceof Uint8Array) || sealed.byteLength < PAYLOAD || sealed[0] !== FORMAT_VERSION) throw fail();
      const key = keys.get(sealed[1]!);
      if (!key) throw fail();
      const ad = associatedData(sealed.subarray(0, HEADER_BYTES), aad);
      let dataKey: Buffer | undefined;
      try {
        dataKey = decrypt(key, sealed.subarray(WRAP_NONCE, WRAPPED_KEY), sealed.subarray(WRAPPED_KEY, WRAP_TAG), sealed.subarray(WRAP_TAG, NONCE), ad);
        const plaintext = decrypt(dataKey, sealed.subarray(NONCE, TAG), sealed.subarray(PAYLOAD), sealed.subarray(TAG, PAYLOAD), ad);
        return new Uint8Array(plaintext.buffer, plaintext.byteOffset, plaintext.byteLength);
      } catch {
        throw fail();
      } finally {
        dataKey?.fill(0);
      }
    },
  };
}

/** A new random master key, base64: for set-up scripts and tests. */
export function generateMasterKey(): string {
  return randomBytes(KEY_BYTES).toString('base64');
}

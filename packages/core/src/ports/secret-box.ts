/**
 * A sealed secret: opaque, self-describing bytes (format version, master key id, wrapped data
 * key, nonces, tags, ciphertext). Store it as it is (BLOB / bytea); never parse it outside the
 * SecretBox that made it.
 */
export type SealedSecret = Uint8Array;

/**
 * The SecretBox port: encrypts secrets at rest (exchange API keys and secrets) under a master
 * key the host provides. Implementation: `createAesGcmSecretBox` (core/credentials).
 *
 * Guarantees every implementation gives:
 * - Confidentiality and integrity: AES-256-GCM (or stronger authenticated encryption).
 * - Envelope encryption: every `seal` draws a fresh random 256-bit data key, encrypts the
 *   plaintext with it, and stores the data key only wrapped (encrypted) by the master key. Two
 *   seals of the same plaintext never give the same bytes. The master key never leaves the box.
 * - Binding: `aad` (additional authenticated data) is authenticated, not stored. Stratbox uses
 *   `credential:<credential id>:<user id>`, so a sealed row copied to another credential or
 *   another user cannot be opened.
 * - Failure: `open` throws if the bytes were changed in any way, if `aad` differs from the one
 *   given to `seal`, or if the master key (by its id) is unknown. It never returns wrong
 *   plaintext, and its error message never contains the plaintext or key material.
 * - Rotation: sealed bytes carry the id of the master key that wrapped their data key, so a box
 *   given older keys as well keeps opening secrets sealed before a rotation.
 */
export interface SecretBox {
  /** Encrypts `plaintext` (a string is taken as UTF-8) bound to `aad`. */
  seal(plaintext: Uint8Array | string, aad: string): Promise<SealedSecret>;
  /** Decrypts what `seal` returned for the same `aad`; throws on any mismatch or tampering. */
  open(sealed: SealedSecret, aad: string): Promise<Uint8Array>;
}

import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createAesGcmSecretBox, generateMasterKey } from './create-secret-box.js';

const aad = 'credential:cred_AAAAAAAAAAAAAAAAAAAAAA:usr_BBBBBBBBBBBBBBBBBBBBBB';
const text = (bytes: Uint8Array) => Buffer.from(bytes).toString('utf8');

describe('createAesGcmSecretBox', () => {
  it('opens what it sealed, for strings and bytes', async () => {
    const box = createAesGcmSecretBox({ masterKey: generateMasterKey() });
    const secret = JSON.stringify({ apiKey: 'abc', secret: 'päss "wörd" 🚀' });
    expect(text(await box.open(await box.seal(secret, aad), aad))).toBe(secret);
    const bytes = randomBytes(1000);
    expect(Buffer.from(await box.open(await box.seal(bytes, aad), aad)).equals(bytes)).toBe(true);
    expect((await box.open(await box.seal('', aad), aad)).byteLength).toBe(0);
  });

  it('never holds the plaintext in clear, and uses a fresh data key and nonce for every seal', async () => {
    const box = createAesGcmSecretBox({ masterKey: randomBytes(32) });
    const secret = 'the-exchange-secret-value';
    const a = Buffer.from(await box.seal(secret, aad));
    const b = Buffer.from(await box.seal(secret, aad));
    expect(a.includes(Buffer.from(secret))).toBe(false);
    expect(a.equals(b)).toBe(false);
    // Layout: version, key id, wrap nonce (12), wrapped data key (32), wrap tag (16), nonce (12), tag (16), payload.
    expect(a[0]).toBe(1);
    expect(a[1]).toBe(1);
    expect(a.byteLength).toBe(90 + Buffer.byteLength(secret));
    expect(a.subarray(2, 14).equals(b.subarray(2, 14))).toBe(false);
    expect(a.subarray(14, 46).equals(b.subarray(14, 46))).toBe(false);
    expect(a.subarray(62, 74).equals(b.subarray(62, 74))).toBe(false);
  });

  it('throws when any byte was changed, and says nothing of the contents', async () => {
    const box = createAesGcmSecretBox({ masterKey: generateMasterKey() });
    const sealed = await box.seal('top secret', aad);
    for (let i = 0; i < sealed.byteLength; i++) {
      const tampered = new Uint8Array(sealed);
      tampered[i]! ^= 0x01;
      const error = await box.open(tampered, aad).catch((e: unknown) => e);
      expect(error, `byte ${i}`).toBeInstanceOf(Error);
      expect((error as Error).message).not.toContain('top secret');
    }
    await expect(box.open(sealed.subarray(0, sealed.byteLength - 1), aad)).rejects.toThrow();
    await expect(box.open(sealed.subarray(0, 20), aad)).rejects.toThrow();
    await expect(box.open(new Uint8Array(0), aad)).rejects.toThrow();
  });

  it('throws for another aad: a row copied to another credential or user cannot be opened', async () => {
    const box = createAesGcmSecretBox({ masterKey: generateMasterKey() });
    const sealed = await box.seal('top secret', aad);
    await expect(box.open(sealed, 'credential:cred_AAAAAAAAAAAAAAAAAAAAAA:usr_CCCCCCCCCCCCCCCCCCCCCC')).rejects.toThrow();
    await expect(box.open(sealed, 'credential:cred_DDDDDDDDDDDDDDDDDDDDDD:usr_BBBBBBBBBBBBBBBBBBBBBB')).rejects.toThrow();
    await expect(box.open(sealed, '')).rejects.toThrow();
  });

  it('throws under another master key', async () => {
    const sealed = await createAesGcmSecretBox({ masterKey: generateMasterKey() }).seal('top secret', aad);
    await expect(createAesGcmSecretBox({ masterKey: generateMasterKey() }).open(sealed, aad)).rejects.toThrow();
  });

  it('opens secrets sealed under an earlier key after a rotation, and seals with the new key id', async () => {
    const oldKey = generateMasterKey();
    const before = createAesGcmSecretBox({ masterKey: oldKey, keyId: 1 });
    const sealed = await before.seal('kept across rotation', aad);
    const after = createAesGcmSecretBox({ masterKey: generateMasterKey(), keyId: 2, previousKeys: { 1: oldKey } });
    expect(text(await after.open(sealed, aad))).toBe('kept across rotation');
    const resealed = await after.seal('kept across rotation', aad);
    expect(resealed[1]).toBe(2);
    await expect(before.open(resealed, aad)).rejects.toThrow();
    // The key id is authenticated: pointing a sealed secret at another key id fails.
    const moved = new Uint8Array(sealed);
    moved[1] = 2;
    await expect(after.open(moved, aad)).rejects.toThrow();
  });

  it('refuses master keys that are not 32 bytes, and bad key ids', () => {
    expect(() => createAesGcmSecretBox({ masterKey: randomBytes(16) })).toThrow('32 bytes');
    expect(() => createAesGcmSecretBox({ masterKey: 'c2hvcnQ=' })).toThrow('32 bytes');
    expect(() => createAesGcmSecretBox({ masterKey: generateMasterKey(), keyId: 256 })).toThrow('0 to 255');
    expect(() => createAesGcmSecretBox({ masterKey: randomBytes(32).toString('base64url') })).not.toThrow();
  });
});

/*
 * Masks every echo of a secret (an API key, a secret, a passphrase) in a text that came from
 * outside, such as an exchange's or a proxy's error answer. An echo need not be exact: the
 * matcher is case-insensitive and lets separators and escapes appear between any two letters or
 * digits of the secret, so one pattern per encoding covers the exact value, upper or lower case,
 * URL-encoding (once or twice), JSON escapes (`\"`, `\u002d`), and values split or joined with
 * separators (`AbCd-1234`, `abcd_1234`, `a b c d 1 2 3 4`). Base64 (standard and URL-safe, at
 * each of the three byte alignments, so also inside `base64(key:secret)`) and hex are matched
 * too. Masking more than needed is harmless; showing a secret is not.
 */

/** Secrets with fewer letters and digits than this are not looked for (they would mask ordinary words). */
const MIN_CORE = 4;
/** Between two letters or digits of an echo: up to 3 separators, each a non-alphanumeric character, a %XX escape (possibly re-escaped) or a \uXXXX escape. */
const SEPARATOR = String.raw`(?:[^A-Za-z0-9]|%(?:25)*[0-9A-Fa-f]{2}|\\u[0-9A-Fa-f]{4}){0,3}`;
const MASK = '***';

/** The letters and digits of `form`, as a pattern that allows separators between them; null when too short. */
function loosePattern(form: string): string | null {
  const core = form.replace(/[^A-Za-z0-9]/g, '');
  if (core.length < MIN_CORE) return null;
  return [...core].join(SEPARATOR);
}

/** The base64 of `secret` as it appears inside a longer base64 text, for each byte alignment (only the characters no neighbour affects). */
function base64Forms(secret: Buffer): string[] {
  const forms: string[] = [];
  for (let shift = 0; shift < 3; shift++) {
    const encoded = Buffer.concat([Buffer.alloc(shift), secret]).toString('base64');
    const start = Math.ceil(shift / 3) * 4;
    const end = Math.floor((shift + secret.length) / 3) * 4;
    if (end > start) forms.push(encoded.slice(start, end));
  }
  return forms;
}

/** One case-insensitive pattern matching every supported encoding of the given secrets, or null when there is nothing to look for. */
export function secretMatcher(secrets: readonly string[]): RegExp | null {
  const patterns = new Set<string>();
  for (const secret of secrets) {
    if (typeof secret !== 'string' || secret.length === 0) continue;
    const bytes = Buffer.from(secret, 'utf8');
    // The exact form (with case and separators free) also covers URL and JSON escapes of punctuation.
    const forms = [secret, encodeURIComponent(secret), bytes.toString('hex'), ...base64Forms(bytes)];
    for (const form of forms) {
      const pattern = loosePattern(form);
      if (pattern) patterns.add(pattern);
    }
  }
  if (patterns.size === 0) return null;
  // Longest first, so that a longer echo is masked whole.
  return new RegExp([...patterns].sort((a, b) => b.length - a.length).join('|'), 'gi');
}

/** `text` with every echo of the secrets (see the file comment) replaced by `***`. */
export function maskSecrets(text: string, secrets: readonly string[]): string {
  const matcher = secretMatcher(secrets);
  return matcher ? text.replace(matcher, MASK) : text;
}

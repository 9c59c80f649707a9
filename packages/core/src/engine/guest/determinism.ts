/*
 * What makes a run repeatable: `Math.random` and `ctx.random` are a seeded sfc32, and `Date`
 * answers the candle's time, never the host's clock.
 */

/** A seeded sfc32 generator, warmed up by 12 draws. */
export function createRandom(seed: number): () => number {
  let ra = seed >>> 0;
  let rb = 0x9e3779b9;
  let rc = 0x243f6a88;
  let rd = 1;
  function random(): number {
    const t = (((ra + rb) | 0) + rd) | 0;
    rd = (rd + 1) | 0;
    ra = rb ^ (rb >>> 9);
    rb = (rc + (rc << 3)) | 0;
    rc = (rc << 21) | (rc >>> 11);
    rc = (rc + t) | 0;
    return (t >>> 0) / 4294967296;
  }
  for (let warm = 0; warm < 12; warm++) random();
  return random;
}

/** Replaces `Math.random` with `random` and `Date` with a clock that reads `now()`. */
export function installDeterminism(random: () => number, now: () => number): void {
  const G = globalThis as unknown as { Date: DateConstructor; Math: Math };
  G.Math.random = random;
  const RealDate = G.Date;
  function SandboxDate(this: unknown, ...args: number[]): Date | string {
    const n = args.length;
    if (!new.target) return new RealDate(now()).toString();
    if (n === 0) return new RealDate(now());
    if (n === 1) return new RealDate(args[0]!);
    const [y, m, d, h, mi, s, ms] = args;
    return new RealDate(y!, m!, d === undefined ? 1 : d, h || 0, mi || 0, s || 0, ms || 0);
  }
  SandboxDate.prototype = RealDate.prototype;
  SandboxDate.now = () => now();
  SandboxDate.parse = RealDate.parse;
  SandboxDate.UTC = RealDate.UTC;
  Object.defineProperty(RealDate.prototype, 'constructor', { value: SandboxDate, writable: true, configurable: true });
  G.Date = SandboxDate as unknown as DateConstructor;
}

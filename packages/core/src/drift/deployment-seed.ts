/**
 * The seed of a deployment's PRNG (FNV-1a of its id): its live session and its drift replay draw
 * the same numbers, so a strategy that uses `ctx.random` decides alike in both.
 */
export function deploymentSeed(id: string): number {
  let h = 2166136261;
  for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 16777619);
  return h >>> 0;
}

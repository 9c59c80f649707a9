/** An integer setting from the environment: undefined when unset or empty; an error naming it when not an integer of at least `min`. */
export function optionalInt(env: NodeJS.ProcessEnv, name: string, min: number): number | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min) throw new Error(`${name} must be an integer of at least ${min}, got ${raw}`);
  return value;
}

/** As `optionalInt`, with `fallback` when unset. */
export function intOr(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number): number {
  return optionalInt(env, name, min) ?? fallback;
}

/**
 * Loads started before the component that shows them rendered (main.tsx starts the data of the
 * address the dashboard opened at while the page's code is still on its way), by key: the first
 * hook of a key takes its load instead of starting another; later ones load as usual. One
 * registry for every kind of load, so a key names one load whatever holds it.
 */
const primed = new Map<string, unknown>();

/** Makes `load` the one the first hook of `key` takes; returns the load it replaced, not taken yet (the caller may abort it). */
export function prime<L>(key: string, load: L): L | undefined {
  const replaced = primed.get(key) as L | undefined;
  primed.set(key, load);
  return replaced;
}

/** The load primed under `key`, left primed (what a first render shows). */
export function peekPrimed<L>(key: string): L | undefined {
  return primed.get(key) as L | undefined;
}

/** The load primed under `key`, no longer primed: the caller owns it. */
export function takePrimed<L>(key: string): L | undefined {
  const load = primed.get(key) as L | undefined;
  primed.delete(key);
  return load;
}

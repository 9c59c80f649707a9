import { fmt } from './format.js';

/** Symbol name to index, throwing the strategy-facing TypeError for a symbol the run does not trade. */
export function createSymbolResolver(symbols: readonly string[], what: 'run' | 'deployment'): (symbol: unknown) => number {
  const index: Record<string, number> = Object.create(null);
  for (let s = 0; s < symbols.length; s++) index[symbols[s]!] = s;
  return (symbol) => {
    const i = typeof symbol === 'string' ? index[symbol] : undefined;
    if (i === undefined) throw new TypeError(`Unknown symbol ${fmt(symbol)}; this ${what} trades ${symbols.join(', ')}`);
    return i;
  };
}

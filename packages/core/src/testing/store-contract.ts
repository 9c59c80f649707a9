import type { Store } from '../ports/store.js';

/** Makes a fresh, empty store for one test file, and cleans it up afterwards. */
export type StoreFactory = () => Promise<{ store: Store; cleanup: () => Promise<void> }>;

/** The Store contract suite (being written). */
export function describeStoreContract(_name: string, _factory: StoreFactory): void {}

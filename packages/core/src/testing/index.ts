/** `@stratbox/core/testing`: an in-memory Store and the Store contract suite every Store runs. */
export { createMemoryStore } from './memory-store.js';
export { describeStoreContract, type StoreFactory } from './store-contract.js';

/**
 * `@stratbox/core/contract`: the wire contract, re-exported from `@stratbox/contract` (its home
 * since it became a package of its own, on zod alone) so that existing imports keep working.
 */
export * from '@stratbox/contract';

import { defineConfig, defaultClientConditions } from 'vite';

/**
 * The dashboard's build: one page whose assets go under `/assets/` (hashed names, so the example
 * server caches them for good). `@stratbox/client` and `@stratbox/contract` are read from their
 * TypeScript sources (the workspace's `@stratbox/source` condition), so the dashboard builds on a
 * fresh clone before any package is built.
 */
export default defineConfig({
  base: '/',
  resolve: { conditions: ['@stratbox/source', ...defaultClientConditions] },
  esbuild: { jsx: 'automatic' },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: true,
    rollupOptions: {
      onwarn(warning, warn) {
        // zod's sources carry comments Rollup cannot place; it drops them, nothing else changes
        if (warning.code === 'INVALID_ANNOTATION' && warning.id?.includes('/node_modules/')) return;
        warn(warning);
      },
    },
  },
  server: { proxy: { '/api': 'http://localhost:3000', '/ws': { target: 'ws://localhost:3000', ws: true } } },
});

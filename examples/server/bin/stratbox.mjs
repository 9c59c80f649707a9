#!/usr/bin/env node
/*
 * The `stratbox` command. It runs src/cli.ts from source, as `pnpm start` runs the server:
 * TypeScript through tsx, and the workspace packages through their `@stratbox/source` export
 * condition, so nothing needs building first.
 */
import { register } from 'node:module';

register('./source-condition.mjs', import.meta.url);
const { register: registerTsx } = await import('tsx/esm/api');
registerTsx();
await import('../src/cli.ts');

#!/usr/bin/env node
/*
 * `pnpm cli <command>` in the repository: the `stratbox` command on the data of `pnpm start`
 * (examples/server/.stratbox) unless DATA_DIR says otherwise. The root package links this bin
 * as `cli`, so pnpm runs it as a binary, without the banner it prints before a script.
 */
import { fileURLToPath } from 'node:url';

process.env.DATA_DIR ||= fileURLToPath(new URL('../.stratbox', import.meta.url));
await import('./stratbox.mjs');

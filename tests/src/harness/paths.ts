import { fileURLToPath } from 'node:url';
import { resolve } from 'node:path';

export const REPO_ROOT = resolve(fileURLToPath(new URL('../../..', import.meta.url)));
export const SERVER_DIR = resolve(REPO_ROOT, 'examples/server');
/** How `pnpm start` / `pnpm cli` run the example server: TypeScript sources through tsx. */
export const NODE_ARGS = ['--conditions=@stratbox/source', '--import', 'tsx'];
/** The example server's `stratbox` bin (package.json `bin`). */
export const STRATBOX_BIN = resolve(SERVER_DIR, 'bin/stratbox.mjs');

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Test fixture: writes into `dir` a real worker script that starts, writes its pid to `pidFile`
 * and never reports ready (a stalled start), for tests of the live sandbox's start timeout.
 */
export function stuckWorker(dir: string): { path: string; pidFile: string } {
  const pidFile = join(dir, 'pid');
  const path = join(dir, 'stuck-worker.cjs');
  writeFileSync(path, `require('node:fs').writeFileSync(${JSON.stringify(pidFile)}, String(process.pid));\nsetInterval(() => {}, 1000);\n`);
  return { path, pidFile };
}

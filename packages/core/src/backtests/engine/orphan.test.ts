import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/** True while the process exists and is not a zombie waiting to be reaped. */
function alive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

describe.runIf(process.platform === 'linux')('a sandbox child whose host dies', () => {
  it('stops within seconds, long before the 60 s CPU budget of its endless job', async () => {
    const fixture = fileURLToPath(new URL('./testing/orphaning-parent.ts', import.meta.url));
    const parent = spawn(process.execPath, ['--conditions=@stratbox/source', '--import', 'tsx', fixture], { stdio: ['ignore', 'pipe', 'inherit'] });
    const childPid = await new Promise<number>((resolve, reject) => {
      let out = '';
      parent.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString('utf8');
        const match = /busy (\d+)/.exec(out);
        if (match) resolve(Number(match[1]));
      });
      parent.once('exit', (code) => reject(new Error(`fixture exited early (${code})`)));
    });
    await new Promise((r) => setTimeout(r, 300));
    expect(alive(childPid)).toBe(true);

    parent.kill('SIGKILL');
    // Generous for a loaded machine: the child notices its parent is gone within moments when idle.
    const deadline = Date.now() + 20_000;
    while (alive(childPid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    const stillAlive = alive(childPid);
    if (stillAlive) process.kill(childPid, 'SIGKILL');
    expect(stillAlive).toBe(false);
  }, 30_000);
});

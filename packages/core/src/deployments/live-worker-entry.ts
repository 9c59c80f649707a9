/**
 * Entry of a live sandbox child process (forked by `createLiveSandbox`): holds ONE live
 * deployment's QuickJS session for as long as the deployment runs, and answers one call at a
 * time. Built as `dist/sandbox/live-worker-entry.js|.cjs` and published as
 * `@stratbox/core/sandbox/live-worker-entry`. Never imported by the host.
 */
import { SandboxError } from '../sandbox/sandbox-error.js';
import { openLiveSession, type LiveSession } from './live-session.js';
import type { LiveChildMessage, LiveParentMessage } from './live-worker-protocol.js';

let session: LiveSession | null = null;

function send(message: LiveChildMessage): void {
  process.send?.(message);
}

function fail(id: number, error: unknown): void {
  const e =
    error instanceof SandboxError ? error : new SandboxError('CRASHED', `The sandbox failed: ${error instanceof Error ? error.message : String(error)}`);
  send({ type: 'error', id, code: e.code, message: e.message, details: e.details ?? null });
}

async function handle(message: LiveParentMessage): Promise<void> {
  const { id } = message;
  try {
    if (message.type === 'open') {
      if (session) throw new SandboxError('INVALID_JOB', 'This live sandbox already holds a session');
      session = await openLiveSession(message.input, message.limits);
      send({ type: 'opened', id, meta: session.meta, params: session.params });
      return;
    }
    if (!session) throw new SandboxError('INVALID_JOB', 'No live session is open');
    if (message.type === 'history') {
      session.history(message.candles);
      send({ type: 'done', id, result: null });
    } else if (message.type === 'candle') {
      send({ type: 'done', id, result: session.candle(message.candle, message.state) });
    } else {
      send({ type: 'done', id, result: session.order(message.event, message.state) });
    }
  } catch (error) {
    fail(id, error);
  }
}

// One call at a time, in order.
let queue: Promise<void> = Promise.resolve();
process.on('message', (message: LiveParentMessage) => {
  queue = queue.then(() => handle(message));
});
process.on('disconnect', () => process.exit(0));
send({ type: 'ready', pid: process.pid });

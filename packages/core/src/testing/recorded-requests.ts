/*
 * A list of what a local fake received, with a wait for the n-th item, so tests wait for
 * deliveries instead of sleeping. Shared by fake-telegram-bot-api.ts, fake-discord-webhook.ts
 * and webhook-receiver.ts.
 */

export interface RecordedList<T> {
  /** Everything received so far, oldest first. */
  readonly items: readonly T[];
  push(item: T): void;
  /** Resolves with the items once there are at least `count`; rejects after `timeoutMs` (default 30 s) saying how many came. */
  waitFor(count: number, timeoutMs?: number): Promise<readonly T[]>;
}

export function createRecordedList<T>(what: string): RecordedList<T> {
  const items: T[] = [];
  const waiters: Array<{ count: number; resolve: () => void }> = [];
  return {
    items,
    push(item) {
      items.push(item);
      for (const waiter of waiters.splice(0)) {
        if (items.length >= waiter.count) waiter.resolve();
        else waiters.push(waiter);
      }
    },
    waitFor(count, timeoutMs = 30_000) {
      if (items.length >= count) return Promise.resolve(items);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`Waited ${timeoutMs} ms for ${count} ${what}; ${items.length} came`)), timeoutMs);
        waiters.push({
          count,
          resolve: () => {
            clearTimeout(timer);
            resolve(items);
          },
        });
      });
    },
  };
}

/** A request's whole body. */
export function readBody(req: import('node:http').IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

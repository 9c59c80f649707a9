/**
 * One serial lock per deployment: every operation on one deployment (launch, poll, stop, fail,
 * halt) runs after the earlier ones on that deployment, one at a time, so a stop never
 * interleaves with a poll placing an order. Operations on different deployments run freely.
 */
export interface DeploymentLocks {
  /** Runs `fn` after every earlier operation on the same deployment (whether those resolved or threw); settles as `fn` does. */
  run<T>(id: string, fn: () => Promise<T>): Promise<T>;
  /** Whether an operation on the deployment is queued or running. */
  busy(id: string): boolean;
}

export function createDeploymentLocks(): DeploymentLocks {
  const tails = new Map<string, Promise<unknown>>();
  return {
    run(id, fn) {
      const previous = tails.get(id) ?? Promise.resolve();
      const result = previous.then(fn, fn);
      const tail = result.catch(() => undefined);
      tails.set(id, tail);
      void tail.then(() => {
        if (tails.get(id) === tail) tails.delete(id);
      });
      return result;
    },
    busy: (id) => tails.has(id),
  };
}

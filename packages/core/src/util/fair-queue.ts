/**
 * A waiting line shared fairly by groups (users): items of one group leave in the order they
 * came, and the groups take turns, so one group's fifty waiting items delay another group's one
 * item by at most one turn. `take` can skip groups that may not start more now (a per-group
 * cap on running work).
 */
export interface FairQueue<T> {
  /** Adds an item at the end of its group's line. */
  push(group: string, item: T): void;
  /**
   * Removes and returns the next item: from the group whose last turn is oldest (a group never
   * served first), among those `canTake(group)` allows. Undefined if none may go now.
   */
  take(canTake?: (group: string) => boolean): T | undefined;
  /** The item `take(canTake)` would return now, left where it is. */
  peek(canTake?: (group: string) => boolean): T | undefined;
  /** Removes one item wherever it waits; false if it was not there. */
  remove(item: T): boolean;
  /** The first waiting item that matches, or undefined. */
  find(match: (item: T) => boolean): T | undefined;
  /** Removes and returns every waiting item. */
  drain(): T[];
  readonly size: number;
}

/** Groups whose last turn is remembered after their line emptied (older ones are forgotten). */
const REMEMBERED_GROUPS = 10_000;

export function createFairQueue<T>(): FairQueue<T> {
  const lines = new Map<string, T[]>();
  // the turn number at which each group last had an item taken; a group never seen goes first
  const lastTurn = new Map<string, number>();
  let turn = 0;
  let size = 0;

  function forget() {
    if (lastTurn.size <= REMEMBERED_GROUPS) return;
    for (const group of lastTurn.keys()) {
      if (lastTurn.size <= REMEMBERED_GROUPS / 2) break;
      if (!lines.has(group)) lastTurn.delete(group);
    }
  }

  /** The group whose turn it is among those `canTake` allows, if any. */
  function next(canTake?: (group: string) => boolean): string | undefined {
    let best: string | undefined;
    let bestTurn = Infinity;
    for (const group of lines.keys()) {
      const last = lastTurn.get(group) ?? -1;
      if (last < bestTurn && (!canTake || canTake(group))) {
        best = group;
        bestTurn = last;
      }
    }
    return best;
  }

  return {
    push(group, item) {
      const line = lines.get(group);
      if (line) line.push(item);
      else lines.set(group, [item]);
      size++;
    },
    take(canTake) {
      const best = next(canTake);
      if (best === undefined) return undefined;
      const line = lines.get(best)!;
      const item = line.shift()!;
      if (line.length === 0) lines.delete(best);
      lastTurn.delete(best);
      lastTurn.set(best, turn++);
      forget();
      size--;
      return item;
    },
    peek(canTake) {
      const best = next(canTake);
      return best === undefined ? undefined : lines.get(best)![0];
    },
    remove(item) {
      for (const [group, line] of lines) {
        const index = line.indexOf(item);
        if (index < 0) continue;
        line.splice(index, 1);
        if (line.length === 0) lines.delete(group);
        size--;
        return true;
      }
      return false;
    },
    find(match) {
      for (const line of lines.values()) {
        const found = line.find(match);
        if (found !== undefined) return found;
      }
      return undefined;
    },
    drain() {
      const all = [...lines.values()].flat();
      lines.clear();
      size = 0;
      return all;
    },
    get size() {
      return size;
    },
  };
}

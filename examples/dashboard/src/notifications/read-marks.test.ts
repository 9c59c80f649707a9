import { describe, expect, it } from 'vitest';
import { countUnread, markReadUntil, readUntil } from './read-marks.js';

function memoryStorage(): Storage {
  const items = new Map<string, string>();
  return {
    get length() {
      return items.size;
    },
    clear: () => items.clear(),
    getItem: (k) => items.get(k) ?? null,
    key: (i) => [...items.keys()][i] ?? null,
    removeItem: (k) => void items.delete(k),
    setItem: (k, v) => void items.set(k, v),
  };
}

describe('read marks of the bell', () => {
  const events = [{ time: '2026-01-02T00:00:03.000Z' }, { time: '2026-01-02T00:00:02.000Z' }, { time: '2026-01-02T00:00:01.000Z' }];

  it('counts every event unread until the bell is opened, then only newer ones', () => {
    const storage = memoryStorage();
    expect(countUnread(events, readUntil('usr_a', storage))).toBe(3);
    markReadUntil('usr_a', '2026-01-02T00:00:02.000Z', storage);
    expect(countUnread(events, readUntil('usr_a', storage))).toBe(1);
    // another user of the same browser has their own marks
    expect(countUnread(events, readUntil('usr_b', storage))).toBe(3);
  });

  it('never moves the mark back (an older tab marking late)', () => {
    const storage = memoryStorage();
    markReadUntil('usr_a', '2026-01-02T00:00:03.000Z', storage);
    markReadUntil('usr_a', '2026-01-02T00:00:01.000Z', storage);
    expect(readUntil('usr_a', storage)).toBe('2026-01-02T00:00:03.000Z');
  });
});

import type { NotificationEvent } from '@stratbox/client';

const key = (userId: string) => `stratbox.notifications.readUntil.${userId}`;

/**
 * The time up to which a user has read their events, kept in `localStorage` (per user, shared by
 * the tabs of this browser); null when they never opened the bell here.
 */
export function readUntil(userId: string, storage: Storage = window.localStorage): string | null {
  try {
    return storage.getItem(key(userId));
  } catch {
    return null;
  }
}

/** Marks every event up to `time` read. */
export function markReadUntil(userId: string, time: string, storage: Storage = window.localStorage): void {
  try {
    const previous = storage.getItem(key(userId));
    if (!previous || previous < time) storage.setItem(key(userId), time);
  } catch {
    // storage refused (private mode, full): the count comes back on the next load
  }
}

/** The events newer than `until` (ISO times compare as strings). */
export function countUnread(events: readonly Pick<NotificationEvent, 'time'>[], until: string | null): number {
  return until === null ? events.length : events.filter((event) => event.time > until).length;
}

import { NOTIFICATION_EVENT_CATALOGUE, type NotificationEventType } from '@stratbox/client';
import { FieldError } from '../ui/field-error.js';
import { PICKABLE_EVENT_TYPES } from './channel-form-values.js';

interface EventPickerProps {
  allEvents: boolean;
  events: NotificationEventType[];
  onChange(change: { allEvents: boolean; events: NotificationEventType[] }): void;
  problems: string[] | undefined;
}

/** The events a channel takes: "All events", or a checkbox per type of the catalogue with its severity and meaning. */
export function EventPicker({ allEvents, events, onChange, problems }: EventPickerProps) {
  const toggle = (type: NotificationEventType, on: boolean) =>
    onChange({ allEvents, events: on ? [...events, type] : events.filter((picked) => picked !== type) });
  return (
    <fieldset className="event-picker" aria-describedby={problems ? 'channel-events-error' : undefined}>
      <legend>Events</legend>
      <label className="checkbox-field">
        <input type="checkbox" checked={allEvents} onChange={(e) => onChange({ allEvents: e.target.checked, events })} />
        All events (including those added later)
      </label>
      {allEvents ? null : (
        <ul className="event-choices">
          {PICKABLE_EVENT_TYPES.map((type) => {
            const entry = NOTIFICATION_EVENT_CATALOGUE[type];
            return (
              <li key={type}>
                <label className="checkbox-field">
                  <input type="checkbox" checked={events.includes(type)} onChange={(e) => toggle(type, e.target.checked)} />
                  <code>{type}</code>
                  <span className={`badge badge-severity-${entry.severity}`}>{entry.severity}</span>
                </label>
                <p className="hint">{entry.description.replaceAll('`', '')}</p>
              </li>
            );
          })}
        </ul>
      )}
      <FieldError id="channel-events-error" messages={problems} />
    </fieldset>
  );
}

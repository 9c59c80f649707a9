/** The colours a badge comes in, named after the run statuses that use them (styles.css `.badge-<tone>`). */
export type BadgeTone = 'queued' | 'running' | 'completed' | 'failed' | 'cancelled';

type StatusBadgeProps =
  /** A run's status, coloured by its own name. */
  | { status: BadgeTone; tone?: BadgeTone }
  /** Any other status, with the colour it reads as. */
  | { status: string; tone: BadgeTone };

/** A status as a word with a colour (the word carries the meaning). */
export function StatusBadge({ status, tone }: StatusBadgeProps) {
  return <span className={`badge badge-${tone ?? status}`}>{status}</span>;
}

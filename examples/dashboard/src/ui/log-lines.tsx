import type { LogPageData } from '@stratbox/client';
import { formatTime } from './format.js';

export type LogLine = LogPageData['logs'][number];

/**
 * Log lines, oldest first, each with its time and level (a backtest's or a deployment's). The
 * list scrolls past a screenful, so it takes the focus: the keyboard scrolls it too.
 */
export function LogLines({ lines }: { lines: LogLine[] }) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must be reachable by keyboard to be scrolled by it
    <ol className="log-lines" tabIndex={0} aria-label="Log lines">
      {lines.map((line, index) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: log lines only ever append
        <li key={index} className={`log-${line.level}`}>
          <time dateTime={line.timestamp}>{formatTime(line.timestamp)}</time> <span className="log-level">{line.level}</span> {line.message}
        </li>
      ))}
    </ol>
  );
}

import type { LogPageData } from '@stratbox/client';
import { formatTime } from './format.js';

export type LogLine = LogPageData['logs'][number];

/** Log lines, oldest first, each with its time and level (a backtest's or a deployment's). */
export function LogLines({ lines }: { lines: LogLine[] }) {
  return (
    <ol className="log-lines">
      {lines.map((line, index) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: log lines only ever append
        <li key={index} className={`log-${line.level}`}>
          <time dateTime={line.timestamp}>{formatTime(line.timestamp)}</time> <span className="log-level">{line.level}</span> {line.message}
        </li>
      ))}
    </ol>
  );
}

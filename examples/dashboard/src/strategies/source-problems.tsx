import type { SourceProblem } from '../ui/describe-error.js';
import { problemPlace } from './source-diagnostics.js';

/** The server's problems with the source, as a list under the editor; a problem with a line jumps there. */
export function SourceProblems({ id, problems, onJump }: { id: string; problems: SourceProblem[]; onJump(line: number, column?: number): void }) {
  if (problems.length === 0) return null;
  return (
    <div className="source-problems" id={id}>
      <p className="field-error">The service refused the source:</p>
      <ul>
        {problems.map((problem, index) => {
          const place = problemPlace(problem);
          return (
            // biome-ignore lint/suspicious/noArrayIndexKey: problems have no id and never move
            <li key={index}>
              {problem.line !== undefined ? (
                <button type="button" className="link-button" onClick={() => onJump(problem.line!, problem.column)}>
                  {place[0]!.toUpperCase() + place.slice(1)}
                </button>
              ) : place ? (
                <code>{place}</code>
              ) : null}
              {place ? ': ' : ''}
              {problem.message}
            </li>
          );
        })}
      </ul>
    </div>
  );
}

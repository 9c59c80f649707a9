import type { z } from 'zod';
import { StratboxError } from '../errors/stratbox-error.js';

export interface ValidationProblem {
  path: string;
  message: string;
}

/** The problems of a failed zod parse, as `{ path, message }` with dotted paths under `where`. */
export function describeIssues(error: z.ZodError, where: string): ValidationProblem[] {
  return error.issues.map((issue) => {
    const keys = issue.code === 'unrecognized_keys' ? issue.keys : [];
    const base = [where, ...issue.path.map(String)].filter(Boolean).join('.');
    if (keys.length > 0) {
      return { path: base, message: `Unknown field${keys.length > 1 ? 's' : ''}: ${keys.join(', ')}` };
    }
    return { path: base, message: issue.message };
  });
}

/**
 * Parses input against a contract schema; a mismatch throws VALIDATION_FAILED (400) with one
 * `{ path, message }` per problem.
 */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown, where: string): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw validationFailed(describeIssues(result.error, where), where);
}

/**
 * The VALIDATION_FAILED error (400) of one or more problems: its message names the first
 * (`Invalid <path>: <message>`), its details list them all. `where` names the input when the
 * first problem has no path.
 */
export function validationFailed(problems: readonly ValidationProblem[], where = 'input'): StratboxError {
  const first = problems[0];
  return new StratboxError('VALIDATION_FAILED', first ? `Invalid ${first.path || where}: ${first.message}` : `Invalid ${where}`, [...problems]);
}

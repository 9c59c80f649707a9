import { SandboxError } from './sandbox-error.js';

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const DIGITS = new Map([...B64].map((c, i) => [c, i]));

/** One decoded segment: generated column, original line and column (all 0-based). */
type Segment = [number, number, number];

/**
 * Maps positions in the compiled strategy back to the source the user wrote, from esbuild's
 * source map (VLQ `mappings`), so a runtime error points at the user's line and column.
 */
export interface SourceLocator {
  /** 1-based line and column in the compiled code to 1-based line and column in the source. */
  locate(line: number, column: number): { line: number; column: number } | null;
}

export function createSourceLocator(mappings: string): SourceLocator {
  const lines: Segment[][] = [];
  let srcLine = 0;
  let srcCol = 0;
  for (const lineText of mappings.split(';')) {
    const segments: Segment[] = [];
    let genCol = 0;
    if (lineText) {
      for (const seg of lineText.split(',')) {
        const values: number[] = [];
        let value = 0;
        let shift = 0;
        for (const ch of seg) {
          const digit = DIGITS.get(ch);
          if (digit === undefined) break;
          value += (digit & 31) << shift;
          if (digit & 32) shift += 5;
          else {
            values.push(value & 1 ? -(value >>> 1) : value >>> 1);
            value = 0;
            shift = 0;
          }
        }
        if (values.length === 0) continue;
        genCol += values[0]!;
        if (values.length >= 4) {
          // values[1] moves the source index: there is one source, so it is not tracked
          srcLine += values[2]!;
          srcCol += values[3]!;
          segments.push([genCol, srcLine, srcCol]);
        }
      }
    }
    lines.push(segments);
  }
  return {
    locate(line, column) {
      const segments = lines[line - 1];
      if (!segments || segments.length === 0) return null;
      let best = segments[0]!;
      for (const s of segments) {
        if (s[0] <= column - 1) best = s;
        else break;
      }
      return { line: best[1] + 1, column: best[2] + 1 };
    },
  };
}

/** Rewrites `strategy.js:L:C` positions of a guest stack trace into the user's source positions. */
export function mapStack(stack: string, locator: SourceLocator): string {
  return stack.replace(/strategy\.js:(\d+)(?::(\d+))?/g, (whole, l: string, c?: string) => {
    const at = locator.locate(Number(l), Number(c ?? 1));
    return at ? `strategy.ts:${at.line}:${at.column}` : whole;
  });
}

/**
 * Points a strategy error at the user's source: maps the guest stack trace of its details
 * through the source map, and appends the first location to the message ("... (line 12,
 * column 5)", also as `details.line` and `details.column`). Anything else is returned as is.
 */
export function withSourceLocation(error: unknown, locator: SourceLocator | null): unknown {
  if (!(error instanceof SandboxError) || !locator) return error;
  const details = error.details as { stack?: unknown } | undefined;
  if (!details || typeof details.stack !== 'string' || !details.stack) return error;
  const stack = mapStack(details.stack, locator);
  const first = /strategy\.ts:(\d+):(\d+)/.exec(stack);
  const message = first && !/\(line \d+/.test(error.message) ? `${error.message} (line ${first[1]}, column ${first[2]})` : error.message;
  const where = first ? { line: Number(first[1]), column: Number(first[2]) } : {};
  return new SandboxError(error.code, message, { details: { ...details, ...where, stack }, logs: error.logs, cpuMs: error.cpuMs });
}

import { build, buildSync, stop, type BuildOptions, type BuildResult, type Message } from 'esbuild';
import { StratboxError, isStratboxError } from '../errors/stratbox-error.js';
import { checkSourceShape } from './source-shape.js';

/** A strategy source with its TypeScript types stripped, ready for the sandbox. */
export interface CompiledStrategy {
  /** Plain JavaScript ES module (types stripped, newer syntax lowered to what QuickJS runs). */
  code: string;
  /** Names the module exports. */
  exports: string[];
  /** Source map `mappings` from `code` back to the source (see `createSourceLocator`). */
  mappings: string;
}

/** A problem found in a strategy source, with a 1-based line and column when known. */
export interface SourceProblem {
  path: 'source';
  message: string;
  /** `SOURCE_TOO_COMPLEX` when the source is shaped to exhaust a parser (see `checkSourceShape`). */
  code?: string;
  line?: number;
  column?: number;
  lineText?: string;
}

const FILE = 'strategy.ts';

function problemOf(message: Message): SourceProblem {
  const loc = message.location;
  if (!loc) return { path: 'source', message: message.text };
  return { path: 'source', message: message.text, line: loc.line, column: loc.column + 1, lineText: loc.lineText.slice(0, 200) };
}

function fail(problems: SourceProblem[]): never {
  const first = problems[0]!;
  const where = first.line !== undefined ? ` at line ${first.line}, column ${first.column}` : '';
  throw new StratboxError('VALIDATION_FAILED', `Strategy source${where}: ${first.message}`, problems);
}

function lineOf(source: string, needle: string): { line?: number; column?: number } {
  const lines = source.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const col = lines[i]!.indexOf(needle);
    if (col >= 0 && /\bimport\b/.test(lines[i]!)) return { line: i + 1, column: col + 1 };
  }
  return {};
}

/**
 * Strips TypeScript types and checks the syntax with esbuild, without running any of the code.
 * Throws `StratboxError('VALIDATION_FAILED')` (400) whose details list
 * `{ path: 'source', message, line, column }` (1-based) for: a syntax error, an `import`
 * (strategies are one self-contained module), or a missing `onCandle` export.
 */
export function compileStrategySource(source: string): CompiledStrategy {
  checkBeforeCompile(source);
  let result;
  try {
    result = buildSync(buildOptions(source));
  } catch (error) {
    refuse(error);
  }
  return fromResult(source, result);
}

/**
 * The same as `compileStrategySource`, through esbuild's long-lived service instead of a
 * synchronous call: cheaper for a process that compiles many sources (the sandbox's children).
 */
export async function compileStrategySourceAsync(source: string): Promise<CompiledStrategy> {
  checkBeforeCompile(source);
  return compileWithService(source);
}

/**
 * The esbuild part of `compileStrategySourceAsync`, without the shape check in front. A source
 * that kills esbuild's service is refused (400), and the next call starts a fresh service.
 */
export async function compileWithService(source: string): Promise<CompiledStrategy> {
  let result;
  try {
    result = await build(buildOptions(source));
  } catch (error) {
    // if esbuild's long-lived service died on this source, the next call starts a fresh one
    if (!isStratboxError(toValidationError(error))) await stop();
    refuse(error);
  }
  return fromResult(source, result);
}

/** Refuses an empty source, and one shaped to exhaust the parser, before esbuild sees it. */
function checkBeforeCompile(source: string) {
  if (typeof source !== 'string' || source.trim() === '') fail([{ path: 'source', message: 'The strategy source is empty' }]);
  checkSourceShape(source);
}

function buildOptions(source: string) {
  return {
    stdin: { contents: source, loader: 'ts', sourcefile: FILE },
    bundle: false,
    write: false,
    format: 'esm',
    target: 'es2020',
    platform: 'neutral',
    metafile: true,
    sourcemap: 'external',
    outfile: 'strategy.js',
    logLevel: 'silent',
    charset: 'utf8',
    legalComments: 'none',
  } satisfies BuildOptions;
}

/**
 * Throws the syntax errors esbuild reported as VALIDATION_FAILED; an esbuild that failed
 * without reporting any (its process crashed on the source) refuses the source too, never as a
 * server error.
 */
function refuse(error: unknown): never {
  const validation = toValidationError(error);
  if (isStratboxError(validation)) throw validation;
  fail([{ path: 'source', message: 'The compiler could not process this source (too deeply nested or too complex)', code: 'SOURCE_TOO_COMPLEX' }]);
}

function toValidationError(error: unknown): unknown {
  const errors = (error as { errors?: Message[] }).errors;
  if (Array.isArray(errors) && errors.length > 0) {
    try {
      fail(errors.map(problemOf));
    } catch (validation) {
      return validation;
    }
  }
  return error;
}

function fromResult(source: string, result: BuildResult<{ write: false; metafile: true }>): CompiledStrategy {
  const outputKey = Object.keys(result.metafile.outputs).find((k) => k.endsWith('.js'));
  const output = outputKey ? result.metafile.outputs[outputKey] : undefined;
  const code = result.outputFiles.find((f) => f.path.endsWith('.js'))?.text ?? '';
  const mapText = result.outputFiles.find((f) => f.path.endsWith('.map'))?.text;
  const mappings = mapText ? ((JSON.parse(mapText) as { mappings?: string }).mappings ?? '') : '';
  const exports = output?.exports ?? [];
  const imports = output?.imports ?? [];
  if (imports.length > 0) {
    fail(
      imports.map((i) => ({
        path: 'source',
        message: `Strategies cannot import modules (found "${i.path}"): the strategy is one self-contained module`,
        ...lineOf(source, i.path),
      })),
    );
  }
  if (!exports.includes('onCandle')) {
    fail([{ path: 'source', message: 'The strategy must export a function onCandle(ctx, candle)' }]);
  }
  return { code, exports, mappings };
}

/**
 * Checks a strategy source on the host without running it: syntax (with line and column),
 * no imports, an `onCandle` export. Throws `StratboxError('VALIDATION_FAILED')`. To also check
 * `meta` (which needs the code to run), use `pool.inspectStrategy(source)`, which evaluates the
 * module briefly inside the sandbox.
 */
export function checkStrategySource(source: string): void {
  compileStrategySource(source);
}

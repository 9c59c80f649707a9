import { fmt } from './format.js';
import { freeze, jsonStringify } from './intrinsics.js';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

/** The guest's `console` and `ctx.log`: lines kept for the host, within a limit of lines and characters. */
export interface LogBuffer {
  /** True once the strategy wrote past the limit: the current call must end with LOG_LIMIT. */
  hit: boolean;
  /** Called when the limit is passed, right after `hit` is set, unless null (the backtest loop's signal to look after the strategy's call). */
  onLimit: (() => void) | null;
  readonly maxLines: number;
  readonly maxBytes: number;
  /** What the limit applies to, for the error message: '' (a whole backtest) or ' in one call' (live). */
  readonly scope: string;
  /** `ctx.log` and `console.log`: one line at level info. */
  log: (...args: unknown[]) => void;
  /** One line of `args` at `level`; throws once past the limit. */
  write(level: LogLevel, args: ArrayLike<unknown>): void;
  /** Whether lines were written since the last drain. */
  hasLines(): boolean;
  /** The lines written since the last drain (or take), as JSON `[[time, level, text], ...]`. */
  drain(): string;
  /** The lines written since the last take (or drain), as data. */
  take(): Array<[number, LogLevel, string]>;
  /** Forgets the lines and starts the limit again (live: at each call). */
  reset(): void;
}

/** Lines longer than this are cut. */
const MAX_LINE = 2000;

/** A log buffer whose lines are stamped with `now()`. */
export function createLogBuffer(options: { maxLines: number; maxBytes: number; scope: string; now: () => number }): LogBuffer {
  let lines: Array<[number, LogLevel, string]> = [];
  let count = 0;
  let bytes = 0;
  function write(level: LogLevel, args: ArrayLike<unknown>): void {
    if (buffer.hit) throw new Error('Log limit reached');
    let line = '';
    for (let i = 0; i < args.length; i++) line += (i ? ' ' : '') + fmt(args[i]);
    if (line.length > MAX_LINE) line = `${line.slice(0, MAX_LINE)}...`;
    count++;
    bytes += line.length;
    if (count > options.maxLines || bytes > options.maxBytes) {
      buffer.hit = true;
      if (buffer.onLimit !== null) buffer.onLimit();
      throw new Error('Log limit reached');
    }
    lines.push([options.now(), level, line]);
  }
  const log = (...args: unknown[]) => write('info', args);
  const buffer: LogBuffer = {
    hit: false,
    onLimit: null,
    maxLines: options.maxLines,
    maxBytes: options.maxBytes,
    scope: options.scope,
    log,
    write,
    hasLines: () => lines.length > 0,
    drain() {
      return lines.length === 0 ? '[]' : jsonStringify(buffer.take());
    },
    take() {
      const out = lines;
      lines = [];
      return out;
    },
    reset() {
      lines = [];
      count = 0;
      bytes = 0;
      buffer.hit = false;
    },
  };
  return buffer;
}

/** Makes `console.log/info/warn/error/debug` write to `logs` (the guest has no other console). */
export function installConsole(logs: LogBuffer): void {
  (globalThis as unknown as { console: unknown }).console = freeze({
    log: logs.log,
    info: logs.log,
    warn: (...args: unknown[]) => logs.write('warn', args),
    error: (...args: unknown[]) => logs.write('error', args),
    debug: (...args: unknown[]) => logs.write('debug', args),
  });
}

export type LogFields = Record<string, unknown>;

/**
 * Structured logging. Implementations must never throw and must not block the caller on I/O
 * for long. Callers never pass secrets (API keys, exchange secrets) in fields.
 */
export interface Logger {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
}

type Level = 'debug' | 'info' | 'warn' | 'error';
const RANK: Record<Level, number> = { debug: 10, info: 20, warn: 30, error: 40 };

/** One JSON object per line on stdout (or the given sink). */
export function createJsonLogger(options: { level?: Level; write?: (line: string) => void; base?: LogFields } = {}): Logger {
  const min = RANK[options.level ?? 'info'];
  const write = options.write ?? ((line: string) => process.stdout.write(line + '\n'));
  const log = (level: Level) => (message: string, fields?: LogFields) => {
    if (RANK[level] < min) return;
    try {
      write(JSON.stringify({ time: new Date().toISOString(), level, msg: message, ...options.base, ...fields }));
    } catch {
      // a logger never throws
    }
  };
  return { debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') };
}

export function createSilentLogger(): Logger {
  const noop = () => {};
  return { debug: noop, info: noop, warn: noop, error: noop };
}

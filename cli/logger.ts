/** The CLI's logs: pretty lines, or JSON lines with `--log json`; only warnings and errors with `--quiet`. */
export type LogFormat = 'pretty' | 'json';
type LogLevel = 'info' | 'warn' | 'error';

export interface Logger {
  /** A line for people (pretty) and its structured fields (json). */
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  /** The start-up banner: its lines for people, one `msg` with fields for machines. */
  banner(lines: string[], msg: string, fields: Record<string, unknown>): void;
  /** One served request. */
  request(entry: {
    method: string;
    path: string;
    status: number;
    durationMs: number;
    operation?: string | undefined;
    fault?: string | undefined;
  }): void;
}

/** Creates a logger on the given streams: `createLogger({ format: 'json', quiet: false })`. */
export function createLogger(options: {
  format: LogFormat;
  quiet: boolean;
  out?: (line: string) => void;
  err?: (line: string) => void;
  now?: () => Date;
}): Logger {
  const out = options.out ?? ((line) => process.stdout.write(`${line}\n`));
  const err = options.err ?? ((line) => process.stderr.write(`${line}\n`));
  const now = options.now ?? (() => new Date());
  const write = (level: LogLevel, msg: string, fields: Record<string, unknown> = {}, pretty = msg): void => {
    if (options.quiet && level === 'info') return;
    const sink = level === 'info' ? out : err;
    if (options.format === 'json') sink(JSON.stringify({ time: now().toISOString(), level, msg, ...fields }));
    else sink(level === 'info' ? pretty : `${level}: ${pretty}`);
  };
  return {
    info: (msg, fields) => write('info', msg, fields),
    warn: (msg, fields) => write('warn', msg, fields),
    error: (msg, fields) => write('error', msg, fields),
    banner(lines, msg, fields) {
      if (options.quiet) return;
      if (options.format === 'json') write('info', msg, fields);
      else for (const line of lines) out(line);
    },
    request(entry) {
      if (options.quiet) return;
      if (options.format === 'json') {
        const { method, path, status, durationMs, operation, fault } = entry;
        // Only these fields (an entry holds bodies); JSON leaves out the undefined ones.
        write('info', 'request', { method, path, status, durationMs, operation, fault });
        return;
      }
      // HH:MM:SS.mmm (UTC), then what was asked and answered.
      let line = `${now().toISOString().slice(11, 23)} ${entry.method} ${entry.path} ${entry.status} ${entry.durationMs.toFixed(1)}ms`;
      if (entry.operation) line += ` ${entry.operation}`;
      if (entry.fault) line += ` fault ${entry.fault}`;
      out(line);
    },
  };
}

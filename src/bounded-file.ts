/** A file a user named is read only when it is a regular file under a limit: a pipe or /dev/zero would hang. */
import { closeSync, constants, fstatSync, openSync, readSync, statSync, type Stats } from 'node:fs';
import { CliError } from './cli-error.ts';

export const DEFAULT_MAX_FILE_MB = 256;
/** V8's longest string is 2^29 − 24 characters. */
export const MAX_FILE_MB_CEILING = 511;
export const MAX_FILE_MB_ENV = 'ENERGY_SIM_MAX_FILE_MB';

const MB = 1024 * 1024;

export interface FileLimit {
  maxBytes: number;
  /** What raises the limit, e.g. `--max-file-mb (or ENERGY_SIM_MAX_FILE_MB)`. */
  raise: string;
}

/**
 * @example
 *   fileLimit(1).maxBytes; // 1048576
 *   fileLimit(8, 'ENERGY_SIM_MAX_FILE_MB').raise; // 'ENERGY_SIM_MAX_FILE_MB'
 */
export function fileLimit(mb: number, raise = `--max-file-mb (or ${MAX_FILE_MB_ENV})`): FileLimit {
  return { maxBytes: mb * MB, raise };
}

export const DEFAULT_FILE_LIMIT: FileLimit = fileLimit(DEFAULT_MAX_FILE_MB);

/**
 * A `--max-file-mb` value (undefined or empty: the default), or a CliError naming `label`.
 * @example
 *   parseMaxFileMb('64', '--max-file-mb'); // 64
 *   parseMaxFileMb('lots', '--max-file-mb'); // throws "--max-file-mb must be a whole number of megabytes from 1 to 511 (got 'lots')."
 */
export function parseMaxFileMb(raw: string | undefined, label: string): number {
  if (raw === undefined || raw === '') return DEFAULT_MAX_FILE_MB;
  const mb = Number(raw);
  if (!/^\d+$/.test(raw) || mb < 1 || mb > MAX_FILE_MB_CEILING)
    throw new CliError(
      `${label} must be a whole number of megabytes from 1 to ${MAX_FILE_MB_CEILING} (got '${raw}').`,
    );
  return mb;
}

/**
 * The limit from the flag, else ENERGY_SIM_MAX_FILE_MB, else the default; `flagName` null: no flag.
 * @example
 *   fileLimitFrom(undefined, { ENERGY_SIM_MAX_FILE_MB: '8' }).maxBytes; // 8388608
 *   fileLimitFrom('1', {}).raise; // '--max-file-mb (or ENERGY_SIM_MAX_FILE_MB)'
 */
export function fileLimitFrom(
  flag: string | undefined,
  env: NodeJS.ProcessEnv,
  flagName: string | null = '--max-file-mb',
): FileLimit {
  const label =
    flag !== undefined && flagName
      ? flagName
      : flagName
        ? `${MAX_FILE_MB_ENV} (the environment variable of ${flagName})`
        : MAX_FILE_MB_ENV;
  const mb = parseMaxFileMb(flag ?? env[MAX_FILE_MB_ENV], label);
  return fileLimit(mb, flagName ? `${flagName} (or ${MAX_FILE_MB_ENV})` : MAX_FILE_MB_ENV);
}

export class BoundedFileError extends Error {
  constructor(
    message: string,
    readonly rule: 'missing' | 'unreadable' | 'not-regular' | 'too-large',
    readonly code?: string,
  ) {
    super(message);
    this.name = 'BoundedFileError';
  }
}

function kindOf(stats: Stats): string {
  if (stats.isDirectory()) return 'a directory';
  if (stats.isCharacterDevice()) return 'a character device';
  if (stats.isBlockDevice()) return 'a block device';
  if (stats.isFIFO()) return 'a named pipe';
  if (stats.isSocket()) return 'a socket';
  return 'not a file';
}

function sizeText(bytes: number): string {
  if (bytes < MB) return `${bytes} bytes`;
  const mb = bytes / MB;
  return Number.isInteger(mb) ? `${mb} MB` : `${mb.toFixed(1)} MB (${bytes} bytes)`;
}

function fsError(file: string, error: unknown, fix: string): BoundedFileError {
  const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
  return code === 'ENOENT'
    ? new BoundedFileError(`there is no file '${file}'; ${fix}.`, 'missing', code)
    : new BoundedFileError(`cannot read '${file}' (${code}); ${fix}.`, 'unreadable', code);
}

function notRegular(file: string, stats: Stats, fix: string): BoundedFileError {
  return new BoundedFileError(`'${file}' is not a regular file (${kindOf(stats)}); ${fix}.`, 'not-regular');
}

/**
 * The stats of `file` when it is a regular file, else a BoundedFileError (statSync never blocks on a pipe).
 * @example
 *   regularFileStats('/dev/zero', 'pass the path of a recording file'); // throws "'/dev/zero' is not a regular file (a character device); pass the path of a recording file."
 */
export function regularFileStats(file: string, fix: string): Stats {
  let stats: Stats;
  try {
    stats = statSync(file);
  } catch (error) {
    throw fsError(file, error, fix);
  }
  if (!stats.isFile()) throw notRegular(file, stats, fix);
  return stats;
}

const CHUNK_BYTES = 1024 * 1024;

/**
 * Reads a regular file of at most `limit.maxBytes` (checked by name and once opened) by chunks, refusing
 * one that holds more than that; `onChunk` returning false stops.
 */
function readChunks(
  file: string,
  limit: FileLimit,
  fix: string,
  onChunk: (chunk: Buffer) => boolean | void,
): void {
  const tooLarge = (what: string): BoundedFileError =>
    new BoundedFileError(
      `'${file}' ${what}, over the limit of ${sizeText(limit.maxBytes)}; pass a smaller file, or raise the limit with ${limit.raise}.`,
      'too-large',
    );
  const measured = regularFileStats(file, fix);
  if (measured.size > limit.maxBytes) throw tooLarge(`is ${sizeText(measured.size)}`);
  let fd: number;
  try {
    // O_NONBLOCK: should the name now be a pipe, opening it must not wait for a writer.
    fd = openSync(file, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch (error) {
    throw fsError(file, error, fix);
  }
  try {
    const opened = fstatSync(fd);
    if (!opened.isFile()) throw notRegular(file, opened, fix);
    const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
    for (let total = 0; ;) {
      let read: number;
      try {
        read = readSync(fd, chunk, 0, chunk.length, null);
      } catch (error) {
        throw fsError(file, error, fix);
      }
      total += read;
      if (total > limit.maxBytes) throw tooLarge('holds more than its size said (it grew while it was read)');
      if (read === 0 || onChunk(chunk.subarray(0, read)) === false) return;
    }
  } finally {
    closeSync(fd);
  }
}

/**
 * Reads `file` as UTF-8 when it is a regular file of at most `limit.maxBytes`, else a BoundedFileError.
 * @example
 *   const text = readBoundedFile('recordings/upstream.json', fileLimit(256), 'pass the path of a recording file');
 */
export function readBoundedFile(file: string, limit: FileLimit, fix: string): string {
  const chunks: Buffer[] = [];
  readChunks(file, limit, fix, (chunk) => void chunks.push(Buffer.from(chunk)));
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * readBoundedFile by lines: `onLine` gets the text, its number from 1 and whether a newline ended it.
 * @example
 *   readBoundedLines('traffic.jsonl', fileLimit(256), 'pass a recording', (text, n) => void lines.push(text));
 */
export function readBoundedLines(
  file: string,
  limit: FileLimit,
  fix: string,
  onLine: (text: string, lineNumber: number, ended: boolean) => boolean | void,
): void {
  // A line's bytes are decoded only once whole, so a character split between chunks is never halved.
  let pending: Buffer[] = [];
  let lineNumber = 0;
  let stopped = false;
  readChunks(file, limit, fix, (chunk) => {
    let start = 0;
    for (let end = chunk.indexOf(0x0a); end !== -1; end = chunk.indexOf(0x0a, start)) {
      const text = Buffer.concat([...pending, chunk.subarray(start, end)]).toString('utf8');
      pending = [];
      start = end + 1;
      if (onLine(text, ++lineNumber, true) === false) {
        stopped = true;
        return false;
      }
    }
    if (start < chunk.length) pending.push(Buffer.from(chunk.subarray(start)));
  });
  if (!stopped && pending.length > 0) onLine(Buffer.concat(pending).toString('utf8'), ++lineNumber, false);
}

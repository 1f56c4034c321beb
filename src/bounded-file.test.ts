import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  BoundedFileError,
  DEFAULT_MAX_FILE_MB,
  fileLimit,
  fileLimitFrom,
  parseMaxFileMb,
  readBoundedFile,
  type FileLimit,
} from './bounded-file.ts';
import { CliError } from './cli-error.ts';

const scratch = mkdtempSync(path.join(os.tmpdir(), 'bounded-file-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const FIX = 'pass the path of a recording file';
const HUNDRED: FileLimit = { maxBytes: 100, raise: '--max-file-mb (or ENERGY_SIM_MAX_FILE_MB)' };

function fileOf(name: string, bytes: number): string {
  const file = path.join(scratch, name);
  writeFileSync(file, 'x'.repeat(bytes));
  return file;
}

function refusal(file: string, limit: FileLimit = HUNDRED): BoundedFileError {
  try {
    readBoundedFile(file, limit, FIX);
  } catch (error) {
    expect(error).toBeInstanceOf(BoundedFileError);
    return error as BoundedFileError;
  }
  throw new Error(`'${file}' was read`);
}

describe('readBoundedFile', () => {
  it('reads a regular file up to the limit, and one reached through a symlink', () => {
    const file = fileOf('exact.json', 100);
    expect(readBoundedFile(file, HUNDRED, FIX)).toBe('x'.repeat(100));
    const link = path.join(scratch, 'exact-link.json');
    symlinkSync(file, link);
    expect(readBoundedFile(link, HUNDRED, FIX)).toBe('x'.repeat(100));
    expect(readBoundedFile(fileOf('empty.json', 0), HUNDRED, FIX)).toBe('');
  });

  it('reads UTF-8 whole', () => {
    const file = path.join(scratch, 'utf8.json');
    writeFileSync(file, '{"msg":"énergie ⚡"}');
    expect(readBoundedFile(file, HUNDRED, FIX)).toBe('{"msg":"énergie ⚡"}');
  });

  it('refuses a directory, naming it, the rule and the fix', () => {
    const dir = path.join(scratch, 'a-dir');
    mkdirSync(dir);
    const error = refusal(dir);
    expect(error.rule).toBe('not-regular');
    expect(error.message).toBe(`'${dir}' is not a regular file (a directory); ${FIX}.`);
  });

  it('refuses /dev/zero, which never ends, without reading it', () => {
    const error = refusal('/dev/zero', fileLimit(DEFAULT_MAX_FILE_MB));
    expect(error.rule).toBe('not-regular');
    expect(error.message).toBe(`'/dev/zero' is not a regular file (a character device); ${FIX}.`);
  });

  it('refuses a named pipe at once instead of waiting for a writer', () => {
    const fifo = path.join(scratch, 'pipe');
    execFileSync('mkfifo', [fifo]);
    const started = Date.now();
    const error = refusal(fifo);
    expect(Date.now() - started).toBeLessThan(1000);
    expect(error.rule).toBe('not-regular');
    expect(error.message).toBe(`'${fifo}' is not a regular file (a named pipe); ${FIX}.`);
  });

  it('refuses a file over the limit by its size, naming the size, the limit and how to raise it', () => {
    const file = fileOf('big.json', 101);
    const error = refusal(file);
    expect(error.rule).toBe('too-large');
    expect(error.message).toBe(
      `'${file}' is 101 bytes, over the limit of 100 bytes; pass a smaller file, or raise the limit with --max-file-mb (or ENERGY_SIM_MAX_FILE_MB).`,
    );
    const megabytes = fileOf('megabytes.json', 1024 * 1024 + 1);
    expect(refusal(megabytes, fileLimit(1)).message).toBe(
      `'${megabytes}' is 1.0 MB (1048577 bytes), over the limit of 1 MB; pass a smaller file, or raise the limit with --max-file-mb (or ENERGY_SIM_MAX_FILE_MB).`,
    );
  });

  // A file that grows between the stat and the read holds more than its size said; so do
  // /proc's files, which report a size of 0 and yet hold text: a deterministic stand-in.
  it.runIf(process.platform === 'linux')(
    'refuses a file that holds more than its measured size once the limit is passed',
    () => {
      const error = refusal('/proc/self/status');
      expect(error.rule).toBe('too-large');
      expect(error.message).toBe(
        `'/proc/self/status' holds more than its size said (it grew while it was read), over the limit of 100 bytes; pass a smaller file, or raise the limit with --max-file-mb (or ENERGY_SIM_MAX_FILE_MB).`,
      );
      // Under the limit, all of it is read, not just the size the stat gave.
      expect(readBoundedFile('/proc/self/status', fileLimit(1), FIX)).toMatch(/^Name:/);
    },
  );

  it('refuses a missing file, naming it and the fix', () => {
    const missing = path.join(scratch, 'nope.json');
    const error = refusal(missing);
    expect([error.rule, error.code]).toEqual(['missing', 'ENOENT']);
    expect(error.message).toBe(`there is no file '${missing}'; ${FIX}.`);
  });
});

describe('the size limit', () => {
  it('is 256 MB unless set, the flag winning over ENERGY_SIM_MAX_FILE_MB', () => {
    expect(fileLimitFrom(undefined, {}).maxBytes).toBe(256 * 1024 * 1024);
    expect(fileLimitFrom(undefined, { ENERGY_SIM_MAX_FILE_MB: '8' }).maxBytes).toBe(8 * 1024 * 1024);
    expect(fileLimitFrom('2', { ENERGY_SIM_MAX_FILE_MB: '8' }).maxBytes).toBe(2 * 1024 * 1024);
    expect(fileLimitFrom(undefined, { ENERGY_SIM_MAX_FILE_MB: '' }).maxBytes).toBe(256 * 1024 * 1024);
    expect(fileLimitFrom(undefined, {}, null).raise).toBe('ENERGY_SIM_MAX_FILE_MB');
  });

  it.each([
    ['0', '--max-file-mb', "--max-file-mb must be a whole number of megabytes from 1 to 511 (got '0')."],
    ['512', '--max-file-mb', "--max-file-mb must be a whole number of megabytes from 1 to 511 (got '512')."],
    ['1.5', '--max-file-mb', "--max-file-mb must be a whole number of megabytes from 1 to 511 (got '1.5')."],
    ['-1', 'X', "X must be a whole number of megabytes from 1 to 511 (got '-1')."],
  ])('refuses %j with a CliError naming the option and the rule', (raw, label, message) => {
    expect(() => parseMaxFileMb(raw, label)).toThrow(CliError);
    expect(() => parseMaxFileMb(raw, label)).toThrow(message);
  });

  it('names the variable, not the flag, when the bad value came from the environment', () => {
    expect(() => fileLimitFrom(undefined, { ENERGY_SIM_MAX_FILE_MB: 'lots' })).toThrow(
      "ENERGY_SIM_MAX_FILE_MB (the environment variable of --max-file-mb) must be a whole number of megabytes from 1 to 511 (got 'lots').",
    );
    expect(() => fileLimitFrom(undefined, { ENERGY_SIM_MAX_FILE_MB: 'lots' }, null)).toThrow(
      /^ENERGY_SIM_MAX_FILE_MB must be a whole number/,
    );
  });
});

import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { realPathOf } from './real-path.ts';

const scratch = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'real-path-')));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
const at = (...parts: string[]): string => path.join(scratch, ...parts);

describe('realPathOf', () => {
  it('follows a symlink to the file it names', () => {
    writeFileSync(at('real.json'), '{}');
    symlinkSync('real.json', at('link.json'));
    symlinkSync('link.json', at('link-of-link.json'));
    expect(realPathOf(at('link.json'))).toBe(at('real.json'));
    expect(realPathOf(at('link-of-link.json'))).toBe(at('real.json'));
    expect(realPathOf(at('real.json'))).toBe(at('real.json'));
  });

  it('gives a file not there yet as the real path of its directory plus its base name', () => {
    mkdirSync(at('dir'));
    symlinkSync('dir', at('dir-link'));
    expect(realPathOf(at('dir-link', 'new.json'))).toBe(at('dir', 'new.json'));
    expect(realPathOf(path.relative(process.cwd(), at('dir-link', 'new.json')))).toBe(at('dir', 'new.json'));
  });

  it('follows a dangling symlink to where its file will be', () => {
    symlinkSync(path.join('dir', 'later.json'), at('dangling.json'));
    expect(realPathOf(at('dangling.json'))).toBe(at('dir', 'later.json'));
  });

  it('gives a path whose directory is missing as given, resolved, for the error of whatever uses it', () => {
    expect(realPathOf(at('no-dir', 'x.json'))).toBe(at('no-dir', 'x.json'));
  });

  it('stops at a loop of symlinks instead of going round it', () => {
    symlinkSync('loop-b', at('loop-a'));
    symlinkSync('loop-a', at('loop-b'));
    expect(realPathOf(at('loop-a'))).toBe(at('loop-a'));
  });
});

/**
 * The examples import the kit by its package name, as a user's code does; in a checkout
 * tsconfig.json's `paths` (read by tsc and by vitest.config.ts) points each name at a source.
 * That source must be the one the package's `exports` entry of the same name is built from,
 * or the examples would test something other than what users import.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const read = <T>(file: string): T => JSON.parse(readFileSync(path.join(ROOT, file), 'utf8')) as T;

const manifest = read<{ name: string; exports: Record<string, string | { default: string }> }>(
  'package.json',
);
const paths = read<{ compilerOptions: { paths: Record<string, string[]> } }>('tsconfig.json').compilerOptions
  .paths;

describe("the package's own names in a checkout", () => {
  it('map each to the source its exports entry is built from', () => {
    const names = Object.keys(paths);
    expect(names.length).toBeGreaterThan(0);
    for (const name of names) {
      const subpath = `.${name.slice(manifest.name.length)}`;
      const entry = manifest.exports[subpath];
      expect(entry, `${name} is an entry of package.json's exports`).toBeTypeOf('object');
      const built = (entry as { default: string }).default;
      // tsconfig.build.json compiles ./X.ts into ./dist/X.js.
      const source = built.replace(/^\.\/dist\//, './').replace(/\.js$/, '.ts');
      expect(paths[name], name).toEqual([source]);
      expect(existsSync(path.join(ROOT, source)), source).toBe(true);
    }
  });

  it('are what the examples import, with no path into the sources', () => {
    for (const file of ['examples/consumer/buy-energy.ts', 'examples/consumer/buy-energy.test.ts']) {
      const code = readFileSync(path.join(ROOT, file), 'utf8');
      expect(code, file).toMatch(/from 'energy-rental-kit\/(client|testing)'/);
      expect(code, file).not.toMatch(/from '\.\.\/\.\.\//);
    }
  });
});

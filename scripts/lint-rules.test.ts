/**
 * The formatter and the linter fail on what they exist to catch: each rule is run on a
 * planted violation beside a clean twin, so a config change that silently turns a rule off
 * fails here.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
// Planted files exist only as text: the type-aware rules need a file on disk, so they are
// switched off here (the rules under test need no types).
const eslint = new ESLint({
  cwd: root,
  overrideConfig: {
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { projectService: false } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'off',
      '@typescript-eslint/no-misused-promises': 'off',
      '@typescript-eslint/await-thenable': 'off',
    },
  },
});

/** The rule ids ESLint reports for `code` as if it stood at `file`. */
async function rulesBrokenBy(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(root, file) });
  return result!.messages.map((m) => m.ruleId ?? m.message);
}

describe('the folder boundaries', () => {
  it.each([
    ['src/planted.ts', "import { createSimulator } from '../mock/simulator.ts';"],
    ['recording/planted.test.ts', "import { runDrift } from '../drift/drift-command.ts';"],
    ['contract-tests/planted.test.ts', "import { serve } from '../cli/serve.ts';"],
    ['drift/planted.ts', "import { runLoad } from '../bench/load.ts';"],
    ['mock/engine/planted.test.ts', "import { createRealClock } from '../clock/real-clock.ts';"],
    ['mock/http/planted.ts', "import { createSimulator } from '../simulator.ts';"],
    ['mock/testing/planted.ts', "import { createApp } from '../http/create-app.ts';"],
    ['mock/planted.ts', "import { send } from './test-support/http-test-support.ts';"],
  ])('refuse an arrow back up: %s', async (file, code) => {
    expect(await rulesBrokenBy(file, `${code}\nexport const x = 1;\n`)).toContain(
      'import-x/no-restricted-paths',
    );
  });

  it.each([
    ['mock/planted.ts', "import { createApp } from './http/create-app.ts';"],
    ['mock/http/planted.test.ts', "import { createSimulator } from '../simulator.ts';"],
    ['cli/planted.ts', "import { runDrift } from '../drift/drift-command.ts';"],
    ['e2e/planted.test.ts', "import { serve } from '../cli/serve.ts';"],
  ])('let an arrow run down: %s', async (file, code) => {
    expect(await rulesBrokenBy(file, `${code}\nexport const x = 1;\n`)).not.toContain(
      'import-x/no-restricted-paths',
    );
  });
});

describe('the engine', () => {
  it.each([
    ['Date.now()', 'export const t = Date.now();', 'no-restricted-properties'],
    ['new Date()', 'export const t = new Date();', 'no-restricted-syntax'],
    ['Math.random()', 'export const r = Math.random();', 'no-restricted-properties'],
    ['a timer', 'setTimeout(() => {}, 1);', 'no-restricted-syntax'],
    ['Hono', "import { Hono } from 'hono';\nexport const app = new Hono();", 'no-restricted-imports'],
  ])('may not use %s', async (_what, code, rule) => {
    expect(await rulesBrokenBy('mock/engine/planted.ts', code)).toContain(rule);
    expect(await rulesBrokenBy('mock/http/planted.ts', code)).not.toContain(rule);
  });
});

describe('the house rules', () => {
  it('refuse an issue number in a comment or a test name, and take the reason', async () => {
    expect(
      await rulesBrokenBy('mock/http/planted.ts', '// Added for issue 14.\nexport const x = 1;'),
    ).toContain('house/no-issue-numbers');
    expect(
      await rulesBrokenBy(
        'mock/http/planted.test.ts',
        "import { it } from 'vitest';\nit('works (issue 3)', () => {});",
      ),
    ).toContain('house/no-issue-numbers');
    expect(
      await rulesBrokenBy(
        'mock/http/planted.ts',
        '// A body is read once: a stream cannot be rewound.\nexport const x = 1;',
      ),
    ).toEqual([]);
  });
});

describe('the formatter', () => {
  /** oxfmt's output for `code` as if it stood at mock/http/planted.ts, with the repository's config. */
  const formatted = (code: string): string => {
    const run = spawnSync(
      process.execPath,
      [path.join(root, 'node_modules/oxfmt/bin/oxfmt'), '--stdin-filepath', 'mock/http/planted.ts'],
      { cwd: root, input: code, encoding: 'utf8' },
    );
    expect(run.status, run.stderr).toBe(0);
    return run.stdout;
  };

  it('finds code not in the house style, and passes it once formatted', () => {
    // 105 characters once formatted: one line at the house width of 110, two at the default 100.
    const code = `export const planted = { a: 1,b: "two", c: [${'1, '.repeat(18)}1] }\n`;
    const once = formatted(code);
    expect(once).not.toBe(code);
    expect(once).toBe(`export const planted = { a: 1, b: 'two', c: [${'1, '.repeat(18)}1] };\n`);
    expect(once.length - 1).toBeGreaterThan(100);
    expect(formatted(once)).toBe(once);
  });
});

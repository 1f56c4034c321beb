import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('..', import.meta.url));
const script = path.join(root, 'scripts/typecheck-and-lint.mjs');
// Inside the checkout (in test-artifacts/, which git and the repository's lint leave out),
// so the project finds typescript-eslint in the checkout's node_modules.
mkdirSync(path.join(root, 'test-artifacts'), { recursive: true });
const scratch = mkdtempSync(path.join(root, 'test-artifacts', 'typecheck-and-lint-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A project of one file with its own tsconfig.json and a type-aware eslint config (small libs: a quicker program). */
function project(name: string, code: string): string {
  const dir = path.join(scratch, name);
  mkdirSync(dir);
  writeFileSync(
    path.join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        noEmit: true,
        target: 'es2022',
        lib: ['es2022'],
        module: 'nodenext',
        types: [],
      },
      include: ['*.ts'],
    }),
  );
  writeFileSync(
    path.join(dir, 'eslint.config.js'),
    [
      "import tseslint from 'typescript-eslint';",
      'export default tseslint.config({',
      "  files: ['**/*.ts'],",
      '  extends: [tseslint.configs.base],',
      '  languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },',
      "  rules: { '@typescript-eslint/no-floating-promises': 'error', 'prefer-const': 'warn' },",
      '});',
      '',
    ].join('\n'),
  );
  writeFileSync(path.join(dir, 'package.json'), '{ "type": "module" }\n');
  writeFileSync(path.join(dir, 'code.ts'), code);
  return dir;
}

function check(dir: string): Promise<{ code: number; out: string }> {
  return new Promise((resolve) =>
    execFile(process.execPath, [script, dir], (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code ?? 1) : 0, out: stdout + stderr }),
    ),
  );
}

describe('the type check and the lint in one pass (npm run checks)', () => {
  // One project holding all three problems: each run costs two seconds of CPU, and the
  // passing case is every `npm test`, which runs the checks on this checkout.
  it('reports a type error as tsc prints it, a floating promise (a type-aware rule) and a warning as eslint prints them, and fails', async () => {
    const run = await check(
      project(
        'three-problems',
        [
          "export const answer: number = 'forty-two';",
          'async function later(): Promise<void> {}',
          'later();',
          'let unchanged = 42;',
          'export { unchanged };',
          '',
        ].join('\n'),
      ),
    );
    expect(run.out).toMatch(
      /code\.ts\(1,14\): error TS2322: Type 'string' is not assignable to type 'number'/,
    );
    expect(run.out).toMatch(/3:1\s+error\s+Promises must be awaited[\s\S]*no-floating-promises/);
    expect(run.out).toMatch(/4:5\s+warning\s+'unchanged' is never reassigned/);
    expect(run.out).toContain('typecheck: 1 diagnostics; lint: 2 problems');
    expect(run.code).toBe(1);
  });

  it('says in one line that DIR must be a directory with a tsconfig.json, exit 2, for a missing folder and for a folder without one', async () => {
    const missing = await check(path.join(scratch, 'no-such-folder'));
    expect(missing.code).toBe(2);
    expect(missing.out.trim().split('\n')).toEqual([
      expect.stringMatching(
        /^typecheck-and-lint: DIR must be a directory with a tsconfig\.json \(ENOENT: .*no-such-folder\)\.$/,
      ),
    ]);
    const bare = path.join(scratch, 'no-tsconfig');
    mkdirSync(bare);
    const empty = await check(bare);
    expect(empty.code).toBe(2);
    expect(empty.out.trim().split('\n')).toEqual([
      expect.stringMatching(
        /^typecheck-and-lint: DIR must be a directory with a tsconfig\.json \(none in .*no-tsconfig\)\.$/,
      ),
    ]);
  });
});

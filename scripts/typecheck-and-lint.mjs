#!/usr/bin/env node
// `npm run typecheck` and `npm run lint` in one pass sharing one checker, for `npm run checks`:
//   node scripts/typecheck-and-lint.mjs [DIR]   (DIR has a tsconfig.json and eslint.config.js; default: here)
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

function exitWith(message) {
  console.error(message);
  process.exit(2);
}

const dir = process.argv[2] ?? fileURLToPath(new URL('..', import.meta.url));
try {
  process.chdir(dir);
} catch (error) {
  exitWith(`typecheck-and-lint: DIR must be a directory with a tsconfig.json (${error.code}: ${dir}).`);
}
if (!existsSync('tsconfig.json'))
  exitWith(`typecheck-and-lint: DIR must be a directory with a tsconfig.json (none in ${dir}).`);

const { default: ts } = await import('typescript');
const { ESLint } = await import('eslint');
const { TYPED_FILES } = await import('../eslint.config.js');

const parsed = ts.getParsedCommandLineOfConfigFile(
  'tsconfig.json',
  {},
  {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (diagnostic) =>
      exitWith(`tsconfig.json: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`),
  },
);
const program = ts.createProgram({ rootNames: parsed.fileNames, options: parsed.options });
const diagnostics = [...parsed.errors, ...ts.getPreEmitDiagnostics(program)];
if (diagnostics.length > 0)
  process.stdout.write(ts.formatDiagnostics(diagnostics, ts.createCompilerHost(parsed.options)));

const languageOptions = { parserOptions: { projectService: false, programs: [program] } };
const eslint = new ESLint({ overrideConfig: [{ files: TYPED_FILES, languageOptions }] });
const results = await eslint.lintFiles(['.']);
const problems = results.reduce((sum, r) => sum + r.errorCount + r.warningCount, 0);
if (problems > 0) process.stdout.write(await (await eslint.loadFormatter('stylish')).format(results));

console.log(
  `typecheck: ${diagnostics.length === 0 ? 'passed' : `${diagnostics.length} diagnostics`}; ` +
    `lint: ${problems === 0 ? 'passed' : `${problems} problems`}`,
);
process.exit(diagnostics.length > 0 || problems > 0 ? 1 : 0);

// typescript-eslint's recommended rules, the house rules and the folder boundaries; formatting is oxfmt's
// (eslint-config-prettier turns off the rules a Prettier-style formatter owns).
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import globals from 'globals';
import importX from 'eslint-plugin-import-x';
import tseslint from 'typescript-eslint';
import { boundaryZones, TEST_FILES } from './eslint.boundaries.js';
import { houseRules } from './eslint.house-rules.js';

const SOURCES = ['**/*.ts', '**/*.mts', '**/*.js', '**/*.mjs'];
/** The files linted with type information (scripts/typecheck-and-lint.mjs hands them tsc's program). */
export const TYPED_FILES = ['**/*.ts', '**/*.mts'];

export default tseslint.config(
  {
    ignores: [
      'node_modules/',
      'dist/',
      'coverage/',
      'test-artifacts/',
      '.scratch/',
      'src/generated/',
      'bench/.tools/',
      'bench/tmp/',
      'scripts/cli-bundle.d.mts',
    ],
  },
  { files: SOURCES, extends: [js.configs.recommended, ...tseslint.configs.recommended] },
  {
    files: SOURCES,
    languageOptions: {
      ecmaVersion: 2023,
      sourceType: 'module',
      globals: { ...globals.node, ...globals.browser },
    },
    plugins: { 'import-x': importX, house: houseRules },
    settings: { 'import-x/resolver': { node: { extensions: ['.ts', '.mts', '.js', '.mjs'] } } },
    rules: {
      // Unused names are errors, except a deliberate `_` prefix (a callback's unused argument).
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true },
      ],
      // Type-only imports stay type-only, so erasing them never drops a side effect.
      // (`typeof import('…')` stays allowed: it names the type of a module loaded lazily.)
      '@typescript-eslint/consistent-type-imports': [
        'error',
        { fixStyle: 'inline-type-imports', disallowTypeAnnotations: false },
      ],
      '@typescript-eslint/no-import-type-side-effects': 'error',
      'import-x/no-duplicates': 'error',
      'import-x/no-self-import': 'error',
      eqeqeq: ['error', 'always', { null: 'ignore' }],
      'no-var': 'error',
      'prefer-const': 'error',
      'house/no-issue-numbers': 'error',
    },
  },
  // Type-aware rules (a third of the lint's time): only those that catch a promise whose rejection
  // would end the process.
  {
    files: TYPED_FILES,
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
    },
  },
  // Tests read JSON answers field by field and let expect() check them; production code has no `any`.
  {
    files: TEST_FILES,
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  // Plain JavaScript (the bin, scripts, the dashboard's static files) has no types to import.
  {
    files: ['**/*.js', '**/*.mjs'],
    rules: { '@typescript-eslint/consistent-type-imports': 'off' },
  },
  // Folder boundaries: a test may use its folder's face (mock/simulator.ts); production code may not.
  {
    files: SOURCES,
    ignores: TEST_FILES,
    rules: { 'import-x/no-restricted-paths': ['error', { zones: boundaryZones('production') }] },
  },
  {
    files: TEST_FILES,
    rules: { 'import-x/no-restricted-paths': ['error', { zones: boundaryZones('test') }] },
  },
  // The engine is pure: it uses the clock and random source it is given, and knows no HTTP.
  {
    files: ['mock/engine/**/*.ts'],
    ignores: TEST_FILES,
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['hono', 'hono/*', '@hono/*'],
              message: 'mock/engine is pure: HTTP belongs to mock/http.',
            },
            {
              group: ['node:*', '!node:crypto'],
              message: 'mock/engine is pure: only node:crypto (API keys from the CSPRNG, key digests).',
            },
          ],
        },
      ],
      'no-restricted-properties': [
        'error',
        { object: 'Date', property: 'now', message: 'Use the clock the engine is given.' },
        { object: 'performance', property: 'now', message: 'Use the clock the engine is given.' },
        { object: 'Math', property: 'random', message: 'Use the seeded random source the engine is given.' },
      ],
      'no-restricted-syntax': [
        'error',
        {
          selector: "NewExpression[callee.name='Date'][arguments.length=0]",
          message: 'Use the clock the engine is given.',
        },
        {
          selector: 'CallExpression[callee.name=/^(setTimeout|setInterval|setImmediate)$/]',
          message: 'Schedule through the clock the engine is given.',
        },
      ],
    },
  },
  prettier,
);

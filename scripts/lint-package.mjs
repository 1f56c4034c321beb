#!/usr/bin/env node
// The package as published, linted by Are the Types Wrong (ESM-only) and publint --strict:
//   node scripts/lint-package.mjs [FILE.tgz]   (without one it packs the checkout first)
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The file a package's `bin` names, started with this node: no shell, no npm, on any OS. */
function binOf(name, command) {
  const dir = path.join(ROOT, 'node_modules', name);
  const { bin } = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8'));
  return path.join(dir, typeof bin === 'string' ? bin : bin[command]);
}

/** Runs a tool's bin with its output shown; true when it exits 0. */
function passes(name, command, args) {
  const result = spawnSync(process.execPath, [binOf(name, command), ...args], { stdio: 'inherit' });
  if (result.error) console.error(`lint:package: ${command} could not start: ${result.error.message}`);
  return result.status === 0;
}

/** Packs the checkout (its prepack builds dist/) into a directory of its own; the tarball's path. */
function packCheckout(into) {
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const packed = spawnSync(npm, ['pack', '--pack-destination', into, '--silent'], {
    cwd: ROOT,
    stdio: ['ignore', 'ignore', 'inherit'],
    shell: process.platform === 'win32',
  });
  if (packed.status !== 0) {
    console.error(`lint:package: npm pack failed (exit ${packed.status ?? packed.signal})`);
    process.exit(1);
  }
  return path.join(
    into,
    readdirSync(into).find((f) => f.endsWith('.tgz')),
  );
}

const given = process.argv[2];
if (given !== undefined && !(given.endsWith('.tgz') && existsSync(given))) {
  console.error(
    `lint:package: '${given}' is no tarball; give the path of a .tgz that npm pack wrote, or nothing to pack the checkout.`,
  );
  process.exit(2);
}
const scratch = given === undefined ? mkdtempSync(path.join(tmpdir(), 'erk-lint-package-')) : undefined;
try {
  const tarball = given ?? packCheckout(scratch);
  const types = passes('@arethetypeswrong/cli', 'attw', [
    tarball,
    '--profile',
    'esm-only',
    '--exclude-entrypoints',
    // The documents the package exports as files: no types to resolve.
    ...Object.keys(JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')).exports).filter(
      (entry) => entry.endsWith('.yaml'),
    ),
  ]);
  const manifest = passes('publint', 'publint', ['run', tarball, '--strict']);
  process.exitCode = types && manifest ? 0 : 1;
} finally {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
}

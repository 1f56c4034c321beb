#!/usr/bin/env node
// `npm test` (node scripts/test.mjs [vitest arguments]): the static checks beside vitest, at a lower
// priority; a run given vitest arguments may skip the package test, so it lints the package after.
import { spawn } from 'node:child_process';
import { setPriority } from 'node:os';
import { fileURLToPath } from 'node:url';

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const vitestArgs = process.argv.slice(2);

/** Runs a command; resolves with its exit code and, when `hold`, its output. */
function run(command, args, { hold = false, lowPriority = false } = {}) {
  return new Promise((resolve) => {
    const child = spawn(command, args, {
      stdio: hold ? ['ignore', 'pipe', 'pipe'] : 'inherit',
      // Windows starts npm.cmd only through a shell (Node refuses .cmd files without one).
      shell: process.platform === 'win32' && command.endsWith('.cmd'),
    });
    if (lowPriority && child.pid !== undefined) {
      try {
        setPriority(child.pid, 10);
      } catch {
        // Not allowed here: the checks then share the machine as equals.
      }
    }
    let out = '';
    if (hold) {
      child.stdout.setEncoding('utf8').on('data', (chunk) => (out += chunk));
      child.stderr.setEncoding('utf8').on('data', (chunk) => (out += chunk));
    }
    child.once('error', (error) =>
      resolve({ code: 1, out: `${command} could not start: ${error.message}\n` }),
    );
    child.once('close', (code, signal) => resolve({ code: code ?? (signal ? 1 : 0), out }));
  });
}

const chromium = await run(npm, ['run', 'ensure:chromium']);
if (chromium.code !== 0) process.exit(chromium.code);

const started = Date.now();
const checks = run(npm, ['run', 'checks'], { hold: true, lowPriority: true });
const vitestBin = fileURLToPath(new URL('../node_modules/vitest/vitest.mjs', import.meta.url));
const vitest = await run(process.execPath, [vitestBin, 'run', ...vitestArgs]);
const checked = await checks;
process.stdout.write(`\n${checked.out}`);
console.log(`checks (beside vitest): ${checked.code === 0 ? 'passed' : `FAILED, exit ${checked.code}`}`);
const failed = [];
if (checked.code !== 0) failed.push('checks (npm run checks)');
if (vitest.code !== 0) failed.push('vitest');
if (failed.length === 0 && vitestArgs.length > 0) {
  const packaged = await run(npm, ['run', 'lint:package']);
  if (packaged.code !== 0) failed.push('lint:package');
}
const seconds = Math.round((Date.now() - started) / 1000);
if (failed.length > 0) {
  console.error(`npm test: ${failed.join(', ')} failed (${seconds} s)`);
  process.exit(1);
}
console.log(`npm test: every check and test passed (${seconds} s)`);

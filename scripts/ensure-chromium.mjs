#!/usr/bin/env node
// `npm run ensure:chromium`: Debian's Chromium at /usr/bin/chromium for the browser tests,
// installed with apt when missing and running as root (CI containers), else it says how.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const CHROMIUM = '/usr/bin/chromium';

function version() {
  const result = spawnSync(CHROMIUM, ['--version'], { encoding: 'utf8' });
  return result.status === 0 ? result.stdout.trim() : undefined;
}

function run(command, args) {
  console.log(`$ ${command} ${args.join(' ')}`);
  const result = spawnSync(command, args, {
    stdio: 'inherit',
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  });
  if (result.error) return `${command} could not start: ${result.error.message}`;
  if (result.status !== 0)
    return `${command} ${args[0]} exited with ${result.status ?? `signal ${result.signal}`}`;
  return undefined;
}

function fail(message) {
  console.error(`ensure-chromium: ${message}`);
  process.exit(1);
}

if (existsSync(CHROMIUM)) {
  console.log(`ensure-chromium: ${version() ?? `${CHROMIUM} is there (its --version failed)`}`);
  process.exit(0);
}

const manual =
  'Install it with: sudo apt-get update && sudo apt-get install -y --no-install-recommends chromium ' +
  '(Debian/Ubuntu), or run this script as root: npm run ensure:chromium';

if (process.platform !== 'linux') fail(`${CHROMIUM} is missing and this is not Linux. ${manual}`);
if (typeof process.getuid !== 'function' || process.getuid() !== 0) {
  fail(`${CHROMIUM} is missing and installing it needs root. ${manual}`);
}

console.log(`ensure-chromium: ${CHROMIUM} is missing; installing Debian's chromium with apt-get.`);
const problem =
  run('apt-get', ['update']) ?? run('apt-get', ['install', '-y', '--no-install-recommends', 'chromium']);
if (problem) fail(`installing chromium failed: ${problem}. ${manual}`);
if (!existsSync(CHROMIUM)) fail(`apt-get installed chromium but ${CHROMIUM} is still missing. ${manual}`);
console.log(`ensure-chromium: installed ${version() ?? CHROMIUM}`);

#!/usr/bin/env node
// `npm run ensure:chromium`: Debian's Chromium at /usr/bin/chromium for the browser tests,
// installed with apt when missing and running as root (CI containers), else it says how.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const CHROMIUM = '/usr/bin/chromium';
const MANUAL =
  'Install it with: sudo apt-get update && sudo apt-get install -y --no-install-recommends chromium ' +
  '(Debian/Ubuntu), or run this script as root: npm run ensure:chromium';

function fail(message) {
  console.error(`ensure-chromium: ${message}`);
  process.exit(1);
}

if (!existsSync(CHROMIUM)) {
  if (process.platform !== 'linux' || process.getuid?.() !== 0)
    fail(`${CHROMIUM} is missing and installing it needs root on Linux. ${MANUAL}`);
  console.log(`ensure-chromium: ${CHROMIUM} is missing; installing Debian's chromium with apt-get.`);
  for (const args of [['update'], ['install', '-y', '--no-install-recommends', 'chromium']]) {
    console.log(`$ apt-get ${args.join(' ')}`);
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    const result = spawnSync('apt-get', args, { stdio: 'inherit', env });
    if (result.status !== 0)
      fail(
        `apt-get ${args[0]} failed (${result.error?.message ?? `exit ${result.status ?? result.signal}`}). ${MANUAL}`,
      );
  }
  if (!existsSync(CHROMIUM)) fail(`apt-get installed chromium but ${CHROMIUM} is still missing. ${MANUAL}`);
}
const version = spawnSync(CHROMIUM, ['--version'], { encoding: 'utf8' });
console.log(
  `ensure-chromium: ${version.status === 0 ? version.stdout.trim() : `${CHROMIUM} is there (its --version failed)`}`,
);

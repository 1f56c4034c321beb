/**
 * Debian's Chromium for the end-to-end tests: where it is, why a test cannot run
 * without it, and a headless launch with nothing running in the background.
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

const CHROMIUM = '/usr/bin/chromium';

/** Why the browser tests cannot run, or undefined when they can. */
export const CHROMIUM_MISSING = existsSync(CHROMIUM)
  ? undefined
  : `${CHROMIUM} is missing: run \`npm run ensure:chromium\` (\`npm test\` runs it first).`;

/** Flags that keep a headless Chromium quiet: no GPU, no QUIC, no update or sync traffic. */
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * Launches headless Chromium with CHROMIUM_ARGS and `extraArgs`.
 *
 * @example
 *   const browser = await launchChromium([`--host-resolver-rules=MAP rebind.test 127.0.0.1`]);
 */
export function launchChromium(extraArgs: string[] = []): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [...CHROMIUM_ARGS, ...extraArgs],
  });
}

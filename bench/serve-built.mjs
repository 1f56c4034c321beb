#!/usr/bin/env node
// Runs the simulator's CLI from the compiled JavaScript of bench/build.ts instead of the
// TypeScript sources through tsx, to measure what tsx costs:
//
//   node bench/serve-built.mjs <build-dir> serve --port 0 ...
import { existsSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const [buildDir, ...argv] = process.argv.slice(2);
if (!buildDir) {
  console.error('usage: node bench/serve-built.mjs <build-dir> serve [options]');
  process.exit(2);
}
// cli/ today; mock/cli/ in builds of older checkouts.
const main =
  ['cli/main.js', 'mock/cli/main.js'].map((f) => path.resolve(buildDir, f)).find((f) => existsSync(f)) ??
  path.resolve(buildDir, 'cli/main.js');
const cli = await import(pathToFileURL(main).href);
await cli.run(argv);
